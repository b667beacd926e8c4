import { existsSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyStore } from './key-store';

describe('KeyStore.pruneBefore', () => {
  let dir: string;
  let keys: KeyStore;

  /** A stored key whose file was written `secondsAgo` (the store orders versions by that). */
  const stored = (name: string, secondsAgo: number) => {
    const path = keys.storeFetched('mc-1', name, `key of ${name}`);
    const at = Date.now() / 1000 - secondsAgo;
    utimesSync(path, at, at);
    return path;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'certlane-keystore-'));
    keys = new KeyStore(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the deployed version and the newest older one, deletes the rest', () => {
    const v1 = stored('v1', 300);
    const v2 = stored('v2', 200);
    const v3 = stored('v3', 100);
    const v4 = stored('v4', 10);
    expect(keys.pruneBefore('mc-1', 'v4').sort()).toEqual(['v1', 'v2']);
    expect([v1, v2, v3, v4].map(existsSync)).toEqual([false, false, true, true]);
  });

  it('never deletes newer versions, keys of CSRs in flight, or other certificates', () => {
    const v1 = stored('v1', 300);
    const v2 = stored('v2', 200);
    const v3 = stored('v3', 100);
    const pending = stored('job-123', 400);
    const other = keys.storeFetched('mc-2', 'v0', 'key of another certificate');
    // A deployment pinned to v2 while v3 exists: v3 is newer and stays; v1 is the rollback key.
    expect(keys.pruneBefore('mc-1', 'v2')).toEqual([]);
    expect([v1, v2, v3, pending, other].map(existsSync)).toEqual([true, true, true, true, true]);
  });

  it('does nothing when the deployed version has no key on this agent', () => {
    const v1 = stored('v1', 300);
    const v2 = stored('v2', 200);
    expect(keys.pruneBefore('mc-1', 'v9')).toEqual([]);
    expect([v1, v2].map(existsSync)).toEqual([true, true]);
  });
});
