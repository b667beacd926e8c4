import { IsInt, IsOptional, IsString, getMetadataStorage } from 'class-validator';
import { validateDto } from './validate-dto';

class Parent {
  @IsString()
  name!: string;
}

class Child extends Parent {
  @IsOptional()
  @IsInt()
  count?: number;
}

const fieldsOf = async (cls: new () => object, input: unknown) => {
  try {
    await validateDto(cls, input);
    return [];
  } catch (error) {
    return ((error as { details?: { fields?: { field: string }[] } }).details?.fields ?? []).map(
      (f) => f.field,
    );
  }
};

describe('validation metadata cache', () => {
  it('answers lookups with the same metadata, the same array each time', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Child, '', false, false);
    expect(storage.getTargetValidationMetadatas(Child, '', false, false)).toBe(first);
    expect(first.map((m) => m.propertyName).sort()).toEqual(['count', 'count', 'name']);
    // Other arguments are other entries.
    expect(storage.getTargetValidationMetadatas(Child, '', false, false, ['g'])).not.toBe(first);
  });

  it('validates inherited and own fields as before', async () => {
    expect(await fieldsOf(Child, { name: 'x', count: 2 })).toEqual([]);
    expect(await fieldsOf(Child, { name: 7 })).toEqual(['name']);
    expect(await fieldsOf(Child, { name: 'x', count: 'two' })).toEqual(['count']);
    expect(await fieldsOf(Child, { name: 'x', other: 1 })).toEqual(['other']);
    expect(await fieldsOf(Parent, { name: 'x', count: 2 })).toEqual(['count']);
  });

  it('sees a decorator added after the first lookup', async () => {
    class Late {
      @IsString()
      a!: string;
      b?: unknown;
    }
    expect(await fieldsOf(Late, { a: 'x', b: 'y' })).toEqual(['b']);
    IsInt()(Late.prototype, 'b');
    expect(await fieldsOf(Late, { a: 'x', b: 'y' })).toEqual(['b']);
    expect(await fieldsOf(Late, { a: 'x', b: 3 })).toEqual([]);
  });
});
