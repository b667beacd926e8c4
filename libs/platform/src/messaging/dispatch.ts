import {
  CertlaneError,
  DtoClass,
  ErrorCode,
  RequestContext,
  requestContracts,
  RequestSubject,
} from '@certlane/contracts';
import { databaseOutageError } from '../database/database-unreachable';
import { pgIntegrityError } from '../database/pg-errors';
import { assertSafeInput } from '../validation/input-guard';
import { validateDto } from '../validation/validate-dto';
import { BusHooks, Reply, RequestHandler } from './message-bus';

/**
 * Runs a handler for a decoded request: bounds the payload's shape, validates it against the
 * subject's DTO, and
 * turns the outcome into a Reply. Shared by both bus implementations, so they behave alike.
 */
export async function dispatchRequest<S extends RequestSubject>(
  subject: S,
  handler: RequestHandler<S>,
  payload: unknown,
  context: RequestContext,
  hooks: BusHooks,
): Promise<Reply<unknown>> {
  try {
    const contract: { request: DtoClass } = requestContracts[subject];
    // A bus payload is held to the same bounds as an HTTP body, whoever sent it (ADR 0040).
    assertSafeInput(payload, 'payload');
    const request = await validateDto(contract.request, payload);
    const data = await handler(request as Parameters<RequestHandler<S>>[0], context);
    hooks.onRequestHandled?.(subject, 'ok');
    return { ok: true, data: data ?? null };
  } catch (error) {
    const expected = error instanceof CertlaneError ? error : databaseOutageError(error);
    if (expected) {
      hooks.onRequestHandled?.(subject, expected.code);
      return { ok: false, error: expected.toPayload() };
    }
    hooks.onUnexpected?.(error);
    // A Postgres integrity error no handler mapped is still the caller's 4xx (ADR 0040).
    const integrity = pgIntegrityError(error);
    if (integrity) {
      hooks.onRequestHandled?.(subject, integrity.code);
      return { ok: false, error: integrity.toPayload() };
    }
    hooks.onRequestHandled?.(subject, ErrorCode.Internal);
    return { ok: false, error: { code: ErrorCode.Internal, message: 'internal error' } };
  }
}

export function unwrapReply<T>(reply: Reply<T>): T {
  if (reply.ok) return reply.data;
  throw CertlaneError.fromPayload(reply.error);
}
