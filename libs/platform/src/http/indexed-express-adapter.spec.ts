import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { IndexedExpressAdapter, requestBucketKey, routeBucketKey } from './indexed-express-adapter';

type Registrar = {
  get(path: string, handler: express.RequestHandler): unknown;
  post(path: string, handler: express.RequestHandler): unknown;
  delete(path: string, handler: express.RequestHandler): unknown;
  all(path: string, handler: express.RequestHandler): unknown;
  use(handler: express.RequestHandler): unknown;
};

const answer =
  (name: string): express.RequestHandler =>
  (request, response) =>
    response.json({ route: name, params: request.params, path: request.route?.path });

/** The same routes, in the same order, with literal and parameter paths that overlap. */
function registerRoutes(app: Registrar): void {
  app.get('/health', answer('health'));
  app.get('/api/v1/agents/retired', answer('retired'));
  app.get('/api/v1/agents/:id', answer('agent'));
  app.delete('/api/v1/agents/:id', answer('retire'));
  app.get('/api/v1/agents', answer('agents'));
  // Unbucketable: a parameter inside the first three segments; registered between bucketed ones.
  app.get('/api/:version/agents/special', answer('versioned'));
  app.use((request: Request, _response: Response, next: NextFunction) => {
    (request as unknown as { seen: boolean }).seen = true;
    next();
  });
  app.get('/api/v1/agents/:id/work', answer('work'));
  app.all('/api/v1/everything', answer('all'));
  app.post('/api/v1/renewal-policies', answer('create-policy'));
  app.get('/api/v1/files/*rest', answer('files'));
  app.use((request: Request, response: Response) =>
    response
      .status(404)
      .json({ missing: request.path, seen: (request as unknown as { seen?: boolean }).seen }),
  );
}

async function listen(handler: express.Express): Promise<{ server: Server; base: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function call(base: string, method: string, path: string) {
  const response = await fetch(base + path, { method });
  return {
    status: response.status,
    allow: response.headers.get('allow'),
    type: response.headers.get('content-type'),
    body: await response.text(),
  };
}

describe('IndexedExpressAdapter', () => {
  let plain: { server: Server; base: string };
  let indexed: { server: Server; base: string };

  beforeAll(async () => {
    const app = express();
    registerRoutes(app);
    plain = await listen(app);
    const adapter = new IndexedExpressAdapter();
    registerRoutes(adapter as unknown as Registrar);
    indexed = await listen(adapter.getInstance());
  });

  afterAll(async () => {
    await new Promise((resolve) => plain.server.close(resolve));
    await new Promise((resolve) => indexed.server.close(resolve));
  });

  it.each([
    ['GET', '/health'],
    ['GET', '/HEALTH'],
    ['GET', '/health/'],
    ['HEAD', '/health'],
    ['GET', '/api/v1/agents/retired'],
    ['GET', '/api/v1/agents/a-1'],
    ['DELETE', '/api/v1/agents/a-1'],
    ['DELETE', '/api/v1/agents/retired'],
    ['GET', '/api/v1/agents'],
    ['GET', '/api/v1/agents?page=2'],
    ['GET', '/API/V1/Agents/a-1/WORK'],
    ['GET', '/api/v1/agents/a-1/work'],
    ['GET', '/api/v2/agents/special'],
    ['GET', '/api/v1/agents/special'],
    ['PUT', '/api/v1/everything'],
    ['POST', '/api/v1/renewal-policies'],
    ['GET', '/api/v1/renewal-policies'],
    ['OPTIONS', '/api/v1/agents/a-1'],
    ['GET', '/api/v1/files/a/b/c'],
    ['GET', '/api//v1/agents'],
    ['GET', '/api/v1/nothing-here'],
    ['GET', '/'],
  ])('answers %s %s exactly as a plain Express app', async (method, path) => {
    const expected = await call(plain.base, method, path);
    const actual = await call(indexed.base, method, path);
    expect(actual).toEqual(expected);
  });

  it('files routes under their literal prefix and refuses prefixes with parameters', () => {
    expect(routeBucketKey('/api/v1/agents/:id', false)).toBe('api/v1/agents');
    expect(routeBucketKey('/Health', false)).toBe('health');
    expect(routeBucketKey('/Health', true)).toBe('Health');
    expect(routeBucketKey('/api/:v/agents', false)).toBeNull();
    expect(routeBucketKey('/*path', false)).toBeNull();
    expect(routeBucketKey('/api{/v1}', false)).toBeNull();
    expect(requestBucketKey('/api/v1/agents/a-1/work', false)).toBe('api/v1/agents');
    expect(requestBucketKey('//api//v1/', false)).toBe('api/v1');
    expect(requestBucketKey('/', false)).toBe('');
  });

  it('writes JSON replies with the headers and bytes of res.json', async () => {
    const adapter = new IndexedExpressAdapter();
    const app = adapter.getInstance<express.Express>();
    const body = { name: 'ünïcode', list: [1, 2], nested: { ok: true } };
    app.get('/fast', (_request, response) => adapter.reply(response, body, 201));
    app.head('/fast', (_request, response) => adapter.reply(response, body, 200));
    app.get('/express', (_request, response) => response.status(201).json(body));
    app.get('/raw', (_request, response) => {
      response.type('application/json');
      adapter.reply(response, '{"raw":true}', 200);
    });
    app.get('/empty', (_request, response) => adapter.reply(response, body, 204));
    app.get('/text', (_request, response) => {
      response.type('text/plain');
      adapter.reply(response, 'plain words', 200);
    });
    const { server, base } = await listen(app);
    try {
      const fast = await fetch(`${base}/fast`);
      const reference = await fetch(`${base}/express`);
      expect(fast.status).toBe(201);
      expect(fast.headers.get('content-type')).toBe(reference.headers.get('content-type'));
      expect(fast.headers.get('content-length')).toBe(reference.headers.get('content-length'));
      expect(await fast.text()).toBe(await reference.text());

      const head = await fetch(`${base}/fast`, { method: 'HEAD' });
      expect(head.headers.get('content-length')).toBe(reference.headers.get('content-length'));
      expect(await head.text()).toBe('');

      const raw = await fetch(`${base}/raw`);
      expect(raw.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await raw.text()).toBe('{"raw":true}');

      const empty = await fetch(`${base}/empty`);
      expect(empty.status).toBe(204);
      expect(empty.headers.get('content-type')).toBeNull();

      const text = await fetch(`${base}/text`);
      expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await text.text()).toBe('plain words');

      const conditional = await fetch(`${base}/fast`, { headers: { 'if-none-match': '*' } });
      const conditionalReference = await fetch(`${base}/express`, { headers: { 'if-none-match': '*' } });
      expect(conditional.status).toBe(conditionalReference.status);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
