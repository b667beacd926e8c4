import { StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { NextFunction, Request, Response, Router } from 'express';
import * as express from 'express';

/** How many leading path segments name a bucket (`/api/v1/<resource>`). */
const BUCKET_DEPTH = 3;
const DYNAMIC_SEGMENT = /[:*{}()?+\\]/;

type RouteMethod = 'get' | 'post' | 'put' | 'delete' | 'patch' | 'head' | 'options' | 'all';
type RouteArgs = [path: unknown, ...handlers: unknown[]];

interface Bucket {
  router: Router;
  /** Whether a route here answers OPTIONS (an `options` or `all` route). */
  answersOptions: boolean;
}

interface Dispatcher {
  buckets: Map<string, Bucket>;
  /** The app stack's length right after this dispatcher was added; growth means it is closed. */
  stackLengthAfter: number;
}

/**
 * Express finds a route by testing every layer of the app's stack in turn, so with the gateway's
 * hundred-odd routes most of a request's routing time went to regular expressions that could
 * not match. This adapter files each route whose first segments are literal into a small router
 * per literal prefix (`/api/v1/agents`, `/health`...) and puts one dispatching layer in the app
 * stack, which picks the bucket from the request path with one map lookup. Each bucket is an
 * ordinary express `Router` with the app's routing options, so matching, parameters and HEAD
 * behave exactly as before (OPTIONS too, given that Nest always ends the app with a not-found
 * handler: an OPTIONS request is not answered by a bare `Allow` list from a bucket).
 *
 * Order is kept: a route that cannot be bucketed (a parameter in its prefix) or any middleware
 * added to the app after a dispatcher closes it, and later routes go to a new dispatcher after
 * that layer. Routes in different buckets can never match the same path, so their relative
 * order does not matter.
 */
export class IndexedExpressAdapter extends ExpressAdapter {
  private current: Dispatcher | null = null;

  override get(...args: unknown[]): unknown {
    // `app.get(name)` with one argument reads an express setting.
    if (args.length === 1) return this.getInstance<express.Express>().get(args[0] as string);
    return this.addRoute('get', args as RouteArgs);
  }
  override post(...args: unknown[]): unknown {
    return this.addRoute('post', args as RouteArgs);
  }
  override put(...args: unknown[]): unknown {
    return this.addRoute('put', args as RouteArgs);
  }
  override delete(...args: unknown[]): unknown {
    return this.addRoute('delete', args as RouteArgs);
  }
  override patch(...args: unknown[]): unknown {
    return this.addRoute('patch', args as RouteArgs);
  }
  override head(...args: unknown[]): unknown {
    return this.addRoute('head', args as RouteArgs);
  }
  override options(...args: unknown[]): unknown {
    return this.addRoute('options', args as RouteArgs);
  }
  override all(...args: unknown[]): unknown {
    return this.addRoute('all', args as RouteArgs);
  }

  /**
   * A handler's JSON result written directly: the bytes and headers of Express's `res.json`
   * (`application/json; charset=utf-8`, Content-Length) without its content-type parsing and
   * freshness machinery, which cost more than the serialization on small replies. Anything
   * unusual (streams, buffers, errors, conditional requests, bodiless statuses, another content
   * type) goes the regular way.
   */
  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    const json = fastJsonBody(response, body, statusCode ?? response.statusCode);
    if (json === undefined) return super.reply(response, body, statusCode);
    if (statusCode) response.statusCode = statusCode;
    response.setHeader('Content-Type', JSON_UTF8);
    response.setHeader('Content-Length', Buffer.byteLength(json));
    if (response.req.method === 'HEAD') response.end();
    else response.end(json, 'utf8');
    return response;
  }

  private addRoute(method: RouteMethod, args: RouteArgs): unknown {
    const app = this.getInstance<express.Express>();
    const key = typeof args[0] === 'string' ? routeBucketKey(args[0], this.caseSensitive(app)) : null;
    if (key === null) return (app[method] as (...a: unknown[]) => unknown)(...args);

    const dispatcher = this.openDispatcher(app);
    let bucket = dispatcher.buckets.get(key);
    if (!bucket) {
      const router = express.Router({
        caseSensitive: this.caseSensitive(app),
        strict: app.enabled('strict routing'),
      });
      bucket = { router, answersOptions: false };
      dispatcher.buckets.set(key, bucket);
    }
    if (method === 'options' || method === 'all') bucket.answersOptions = true;
    (bucket.router[method] as (...a: unknown[]) => unknown)(...args);
    return app;
  }

  private openDispatcher(app: express.Express): Dispatcher {
    const stack = app.router.stack;
    if (this.current && this.current.stackLengthAfter === stack.length) return this.current;
    const buckets = new Map<string, Bucket>();
    const caseSensitive = this.caseSensitive(app);
    app.use(function routeBucket(request: Request, response: Response, next: NextFunction) {
      const bucket = buckets.get(requestBucketKey(request.path, caseSensitive));
      // A router answers an OPTIONS request none of its routes handles with its own `Allow`
      // list; the app would have passed it on (to Nest's not-found handler), so only a bucket
      // with an OPTIONS route sees one.
      if (bucket && (request.method !== 'OPTIONS' || bucket.answersOptions)) {
        bucket.router(request, response, next);
      } else next();
    });
    this.current = { buckets, stackLengthAfter: stack.length };
    return this.current;
  }

  private caseSensitive(app: express.Express): boolean {
    return app.enabled('case sensitive routing');
  }
}

const JSON_UTF8 = 'application/json; charset=utf-8';
const BODILESS_STATUSES = new Set([204, 205, 304]);

/** The JSON text to write for `body`, or undefined when the reply must go through Express. */
function fastJsonBody(response: Response, body: unknown, status: number): string | undefined {
  if (BODILESS_STATUSES.has(status)) return undefined;
  const headers = response.req.headers;
  // Express may turn a conditional GET into 304 (`req.fresh`); leave those to it.
  if (headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined) return undefined;
  const contentType = response.getHeader('Content-Type');
  if (typeof body === 'string') {
    // A controller that already holds the JSON text (RawJson pages) and set the type to JSON.
    return contentType === 'application/json' || contentType === JSON_UTF8 ? body : undefined;
  }
  if (contentType !== undefined && contentType !== JSON_UTF8) return undefined;
  if (body === null || typeof body !== 'object') return undefined;
  if (body instanceof StreamableFile || body instanceof Error || ArrayBuffer.isView(body)) return undefined;
  return JSON.stringify(body) as string | undefined;
}

/** The bucket of a route path, or null when its prefix has a parameter or pattern syntax. */
export function routeBucketKey(path: string, caseSensitive: boolean): string | null {
  const segments = path.split('/').filter(Boolean);
  const prefix = segments.slice(0, BUCKET_DEPTH);
  if (prefix.some((segment) => DYNAMIC_SEGMENT.test(segment))) return null;
  const key = prefix.join('/');
  return caseSensitive ? key : key.toLowerCase();
}

/** The bucket a request path belongs to: its first segments, as in {@link routeBucketKey}. */
export function requestBucketKey(path: string, caseSensitive: boolean): string {
  let key = '';
  let depth = 0;
  let start = 0;
  while (depth < BUCKET_DEPTH && start < path.length) {
    let end = path.indexOf('/', start);
    if (end === -1) end = path.length;
    if (end > start) {
      key = depth === 0 ? path.slice(start, end) : `${key}/${path.slice(start, end)}`;
      depth++;
    }
    start = end + 1;
  }
  return caseSensitive ? key : key.toLowerCase();
}
