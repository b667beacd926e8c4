import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { validateDto } from '../validation/validate-dto';

/**
 * Validates @Body() and @Query() parameters whose type is a DTO class, with the same rules as
 * bus payloads (validateDto). Path parameters and primitives pass through untouched.
 */
@Injectable()
export class DtoValidationPipe implements PipeTransform {
  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const type = metadata.metatype;
    if (!type || (metadata.type !== 'body' && metadata.type !== 'query') || !isDtoClass(type)) return value;
    return validateDto(
      type as new () => object,
      value === undefined && metadata.type === 'query' ? {} : value,
    );
  }
}

function isDtoClass(type: unknown): boolean {
  if (typeof type !== 'function' || [String, Number, Boolean, Array, Object].includes(type as never))
    return false;
  return getMetadataStorage().getTargetValidationMetadatas(type, '', false, false).length > 0;
}
