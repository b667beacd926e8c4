import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { Type } from '@nestjs/common';
import { DtoClass } from '@certlane/contracts';
import { OPERATION_FACTS, OperationFacts } from './operation-facts';

/**
 * The API description's facts of a Nest controller route: its @Documented facts, with the body
 * and query DTOs of its @Body() and @Query() parameters; undefined when it has no @Documented.
 */
export function documentedFacts(
  controller: Type,
  handler: (...args: never[]) => unknown,
): OperationFacts | undefined {
  const facts = Reflect.getMetadata(OPERATION_FACTS, handler) as OperationFacts | undefined;
  if (!facts) return undefined;
  const body = facts.body ?? parameterDto(controller, handler, RouteParamtypes.BODY);
  const query = facts.query ?? parameterDto(controller, handler, RouteParamtypes.QUERY);
  return { ...facts, ...(body ? { body } : {}), ...(query ? { query } : {}) };
}

/** The class of the whole-object @Body() or @Query() parameter (not `@Query('name')`), if any. */
function parameterDto(
  controller: Type,
  handler: (...args: never[]) => unknown,
  kind: RouteParamtypes,
): DtoClass | undefined {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<
    string,
    { index: number; data?: unknown }
  >;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, handler.name) ??
    []) as unknown[];
  const entry = Object.entries(args).find(
    ([key, arg]) => key.split(':')[0] === String(kind) && arg.data === undefined,
  );
  const type = entry ? types[entry[1].index] : undefined;
  const plain = [Object, String, Number, Boolean, Array, undefined] as unknown[];
  return typeof type === 'function' && !plain.includes(type) ? (type as DtoClass) : undefined;
}
