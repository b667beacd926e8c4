import { CertlaneError, DtoClass, FieldError } from '@certlane/contracts';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate, ValidationError } from 'class-validator';
import { cacheValidationMetadata } from './metadata-cache';

cacheValidationMetadata();

/** Rules about a value's type: when one fails, it is the problem, whatever else failed with it. */
const TYPE_RULES = [
  'isDefined',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'isDate',
  'isEnum',
  'isIn',
];

/**
 * The failed rule to report: a type rule first (a number sent for a string "must be a string",
 * not "must be at most 128 characters"), else the first the DTO declares (decorators are recorded
 * bottom-up, so the last one recorded).
 */
function firstProblem(constraints: [string, string][]): [string, string] {
  for (const rule of TYPE_RULES) {
    const found = constraints.find(([constraint]) => constraint === rule);
    if (found) return found;
  }
  return constraints[constraints.length - 1];
}

/** One message per offending field; a required field that is missing says so. */
function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const constraints = Object.entries(error.constraints ?? {});
    const own: FieldError[] = [];
    if (constraints.length > 0) {
      const [constraint, message] = firstProblem(constraints);
      own.push({
        field,
        message:
          constraint === 'whitelistValidation'
            ? `${field} is not a known field`
            : error.value === undefined
              ? `${field} is required`
              : message,
      });
    }
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * The one validation used for HTTP bodies and queries and for bus payloads alike: unknown
 * fields are refused, declared transforms applied, and failures become validation_failed (400)
 * naming each offending field.
 */
export async function validateDto<T extends object>(cls: DtoClass<T>, input: unknown): Promise<T> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw CertlaneError.validation([{ field: '', message: 'the request body must be a JSON object' }]);
  }
  // A DTO without fields (a request that takes no parameters) accepts only an empty object.
  if (getMetadataStorage().getTargetValidationMetadatas(cls, '', false, false).length === 0) {
    const unknown = Object.keys(input);
    if (unknown.length > 0) {
      throw CertlaneError.validation(
        unknown.map((field) => ({ field, message: `${field} is not a known field` })),
      );
    }
    return new cls();
  }
  const instance = plainToInstance(cls, input, { exposeDefaultValues: false }) as T;
  const errors = await validate(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    // Every rule of a failing field runs, so flatten can report the first declared one.
    stopAtFirstError: false,
    validationError: { target: false, value: true },
  });
  if (errors.length > 0) throw CertlaneError.validation(flatten(errors));
  return instance;
}
