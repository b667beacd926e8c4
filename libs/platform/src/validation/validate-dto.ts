import { CertlaneError, DtoClass, FieldError } from '@certlane/contracts';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate, ValidationError } from 'class-validator';
import { cacheValidationMetadata } from './metadata-cache';

cacheValidationMetadata();

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([constraint, message]) => ({
      field,
      message: constraint === 'whitelistValidation' ? `${field} is not a known field` : message,
    }));
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
    throw new CertlaneError('validation_failed', 'the request body must be a JSON object');
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
    stopAtFirstError: true,
    validationError: { target: false, value: false },
  });
  if (errors.length > 0) throw CertlaneError.validation(flatten(errors));
  return instance;
}
