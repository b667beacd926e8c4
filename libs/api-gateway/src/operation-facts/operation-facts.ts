import { SetMetadata } from '@nestjs/common';
import { DtoClass } from '@certlane/contracts';

/**
 * What the API description says about one route beyond its method, path and access rule: the
 * statuses it answers, what it reads and what it replies. A declared route carries these in its
 * declaration; a Nest controller route (streams, cookies, files) in its @Documented decorator.
 */
export interface OperationFacts {
  /** The success status. */
  status: number;
  /**
   * Other success statuses, each with its reply's contracts type or null for none (a retirement
   * answers 200 with a body or 204 without).
   */
  alsoStatus?: Readonly<Record<number, string | null>>;
  /** Every error status the route answers itself or passes on from its service (spec 7). */
  errors: readonly number[];
  body?: DtoClass;
  /** The body may be absent (read as `{}`). */
  optionalBody?: boolean;
  query?: DtoClass;
  /** The contracts type of the reply (as exported from @certlane/contracts), or null for none. */
  response: string | null;
  /** The reply's media type when it is not JSON (a PEM file, a DER CRL, an NDJSON stream). */
  produces?: string;
  /** Other media types the success status may carry (a file instead of JSON), as strings. */
  alsoProduces?: readonly string[];
  /** Overrides the operation id derived from the bus subject or the handler. */
  operationId?: string;
  summary?: string;
}

export const OPERATION_FACTS = 'certlane:operation-facts';

/**
 * The API description's facts of a Nest controller route; the body and query DTOs are read from
 * the handler's @Body() and @Query() parameters unless given.
 */
export const Documented = (facts: OperationFacts & { operationId: string }): MethodDecorator =>
  SetMetadata(OPERATION_FACTS, facts);
