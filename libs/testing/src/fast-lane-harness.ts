import {
  createServer,
  IncomingHttpHeaders,
  IncomingMessage,
  request as httpRequest,
  Server,
  ServerResponse,
} from 'node:http';
import { AddressInfo } from 'node:net';

// The shapes of the platform's FastLane and RequestObserver, written out: the platform's own tests
// use this library, so it cannot import the platform.
type Lane = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;
type Observer = (
  request: IncomingMessage,
  response: ServerResponse,
  requestId: string,
  route: () => string,
) => void;

export interface PlainHttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One request over plain HTTP on a connection of its own (fast-lane tests on a loopback listener). */
export function plainHttpRequest(
  url: string,
  method = 'GET',
  headers: Record<string, string> = {},
  body?: Buffer | string,
): Promise<PlainHttpResult> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** What a protocol lane test sees: the requests the lane handed on, observed, left behind and logged. */
export interface ProtocolLaneHarness<R, A> {
  /** Requests the lane read and passed to the protocol server. */
  readonly handled: R[];
  /** `<method> <route label> <status>` per request the lane observed (access log and metrics). */
  readonly observed: string[];
  /** `<method> <url>` per request left to the stand-in for Express (it answers 299 `express`). */
  readonly behind: string[];
  /** The arguments of each `logger.error` call. */
  readonly logged: unknown[];
  /** The protocol server's answer; back to the default answer before each test. */
  next: (request: R) => Promise<A>;
  send(
    path: string,
    method?: string,
    headers?: Record<string, string>,
    body?: Buffer | string,
  ): Promise<PlainHttpResult>;
}

/**
 * A protocol's fast lane (EST, SCEP) in front of a stand-in for Express on a real loopback
 * listener, started before the file's tests and closed after them; the records are emptied
 * before each test.
 */
export function protocolLaneHarness<R, A, Logger>(
  makeLane: (handle: (request: R) => Promise<A>, observe: Observer, logger: Logger) => Lane,
  defaultAnswer: () => A,
): ProtocolLaneHarness<R, A> {
  let server: Server;
  let base = '';
  const logger = { error: (...args: unknown[]) => harness.logged.push(args) } as unknown as Logger;
  const harness: ProtocolLaneHarness<R, A> = {
    handled: [],
    observed: [],
    behind: [],
    logged: [],
    next: async () => defaultAnswer(),
    send: (path, method, headers, body) => plainHttpRequest(`${base}${path}`, method, headers, body),
  };
  const lane = makeLane(
    (request) => {
      harness.handled.push(request);
      return harness.next(request);
    },
    (request, response, _requestId, route) =>
      response.on('finish', () =>
        harness.observed.push(`${request.method} ${route()} ${response.statusCode}`),
      ),
    logger,
  );

  beforeAll(async () => {
    server = createServer((request, response) =>
      lane(request, response, () => {
        harness.behind.push(`${request.method} ${request.url}`);
        request.resume();
        request.on('end', () => {
          response.statusCode = 299;
          response.end('express');
        });
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => {
    harness.handled.length = 0;
    harness.observed.length = 0;
    harness.behind.length = 0;
    harness.logged.length = 0;
    harness.next = async () => defaultAnswer();
  });
  return harness;
}
