import { getMetadataStorage } from 'class-validator';

type Lookup = (
  target: object,
  targetSchema: string,
  always: boolean,
  strictGroups: boolean,
  groups?: string[],
) => unknown[];

const INSTALLED = Symbol.for('certlane.validationMetadataCache');

/**
 * class-validator looks up a class's validation metadata on every validate() call, and each lookup
 * walks every decorated class in the process to find parents (an `instanceof` per class): with
 * a few hundred DTOs that walk was the largest share of a small bus request's validation. The
 * metadata only changes when a decorator runs (class definition), so lookups are memoised per
 * class and arguments, and forgotten whenever metadata is added. The answers are the library's
 * own, computed once; it only reads them.
 */
export function cacheValidationMetadata(): void {
  const storage = getMetadataStorage() as unknown as {
    getTargetValidationMetadatas: Lookup;
    addValidationMetadata: (metadata: unknown) => void;
    [INSTALLED]?: true;
  };
  if (storage[INSTALLED]) return;
  storage[INSTALLED] = true;
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  let cache = new Map<object, Map<string, unknown[]>>();
  storage.addValidationMetadata = (metadata) => {
    cache = new Map();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (target, targetSchema, always, strictGroups, groups) => {
    const key = `${targetSchema}\0${always}\0${strictGroups}\0${groups?.join('\0') ?? ''}`;
    let byArguments = cache.get(target);
    if (!byArguments) {
      byArguments = new Map();
      cache.set(target, byArguments);
    }
    let found = byArguments.get(key);
    if (!found) {
      found = lookup(target, targetSchema, always, strictGroups, groups);
      byArguments.set(key, found);
    }
    return found;
  };
}
