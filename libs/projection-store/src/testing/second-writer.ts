import type { ProjectionStore } from '../port.js';

/**
 * `store` as a second writer of a projection meets it: the first read of the saved positions finds
 * none, so that writer folds the whole log again onto documents another writer already folded it
 * into; `forget` of the named collections is `forget` (a spy) instead.
 */
export function asSecondWriter(
  store: ProjectionStore,
  forget: (id: string) => void,
  collections: readonly string[],
): ProjectionStore {
  let resumed = false;
  return new Proxy(store, {
    get(target, property) {
      if (property === 'positions' && !resumed) {
        resumed = true;
        return async () => ({});
      }
      if (property === 'collection') {
        return (name: string) => {
          const collection = target.collection(name);
          return collections.includes(name) ? Object.assign(collection, { forget }) : collection;
        };
      }
      return Reflect.get(target, property) as unknown;
    },
  });
}
