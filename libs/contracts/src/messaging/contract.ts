/**
 * The typed subject map: one entry per request subject (request DTO class + response type) and
 * per event subject (payload type). The bus wrapper in libs/platform is generic over these maps,
 * so a caller cannot send the wrong payload or listen on a misspelled subject.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DtoClass<T = object> = new (...args: any[]) => T;

/** A phantom marker carrying a response or event type without a runtime value. */
export interface Shape<T> {
  readonly __shape?: T;
}
export function shape<T>(): Shape<T> {
  return {};
}

export interface RequestContract<Req extends object, Res> {
  request: DtoClass<Req>;
  response: Shape<Res>;
}

export interface EventContract<T> {
  payload: Shape<T>;
}

/** Metadata carried with every request across the bus (NATS headers or in-process). */
export interface RequestContext {
  request_id: string;
  actor_id?: string;
}

/** Durable domain event envelope: `id` is unique and consumers use it for idempotency. */
export interface EventEnvelope<T> {
  id: string;
  subject: string;
  occurred_at: string;
  actor_id?: string;
  data: T;
}
