import { X509Certificate } from 'node:crypto';
import { Dirent } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { AgentDiscoveryFinding } from '@certlane/contracts';
import { readCertificateFile } from './certificate-files';
import { readPseudoFilesystemMounts } from './pseudo-filesystems';

/**
 * The file names read (ADR 0063): certificate and keystore extensions only. A file named as a
 * key (`.key`) is never opened; a combined PEM, PKCS#12 or JKS file is read, but only its
 * certificate structures are decoded.
 */
export const CERTIFICATE_FILE_EXTENSIONS = new Set([
  '.pem',
  '.crt',
  '.cer',
  '.cert',
  '.der',
  '.p12',
  '.pfx',
  '.jks',
  '.jceks',
  '.keystore',
  '.truststore',
]);

export interface FilesystemScanLimits {
  /** A larger file is skipped (certificate files are small). */
  maxFileBytes: number;
  /** The walk stops after this many files read. */
  maxFiles: number;
  /** Directories deeper than this below a root are not entered. */
  maxDepth: number;
}

export const DEFAULT_SCAN_LIMITS: FilesystemScanLimits = {
  maxFileBytes: 1_048_576,
  maxFiles: 100_000,
  maxDepth: 32,
};

export interface FilesystemScanOptions {
  limits?: FilesystemScanLimits;
  /**
   * Directories below a root that are not entered: the kernel's own file systems (`/proc`,
   * `/sys`); read from this process's mountinfo when absent.
   */
  pseudoMounts?: ReadonlySet<string>;
  /**
   * Findings handed on during the walk, `size` at a time, instead of all kept until its end (a
   * host with many certificates): `findings` then holds only those not sent yet. A send that
   * throws ends the walk with its error.
   */
  batches?: { size: number; send(findings: AgentDiscoveryFinding[]): Promise<void> };
  /** Ends the walk early (the agent is stopping); it is then incomplete. */
  signal?: AbortSignal;
}

export interface FilesystemScanResult {
  /**
   * One per certificate per file, as pushed to the server (public certificates only); with
   * `batches`, those not handed on yet.
   */
  findings: AgentDiscoveryFinding[];
  /** How many findings the walk made in all. */
  found: number;
  filesRead: number;
  /** PKCS#12 files whose certificates no configured password opens. */
  locked: string[];
  /** Roots that could not be read (missing, not a directory, no permission). */
  unreadableRoots: string[];
  /**
   * Directories below a root and certificate files that exist but could not be read (no
   * permission, an I/O error), at most UNREADABLE_LISTED of them; `unreadableCount` counts all.
   */
  unreadable: string[];
  unreadableCount: number;
  /**
   * Whether the walk read every root to the end (no unreadable root, directory or certificate
   * file, the file cap not reached): only then may the server mark what it no longer found as
   * gone (ADR 0063). What vanished during the walk (ENOENT) was not missed: it is gone.
   */
  complete: boolean;
}

/** How many unreadable paths a result lists (the count goes on). */
export const UNREADABLE_LISTED = 20;

/** Errors that say the path is not there (any more): what the walk did not read is gone indeed. */
const VANISHED = new Set(['ENOENT', 'ENOTDIR', 'ELOOP']);

const toPem = (der: Buffer) =>
  `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .replace(/.{64}/g, '$&\n')
    .replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;

async function readSmallFile(path: string, maxBytes: number): Promise<Buffer | null> {
  const handle = await open(path, 'r');
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return null;
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * Walks `roots` for certificate files (PEM, DER, PKCS#12, JKS; ADR 0063) and answers every
 * certificate found with its path. Symbolic links to files are followed (certificate stores are
 * often links); links to directories are not (no loops, no escaping the configured roots).
 * Unreadable directories and files are skipped, and make the walk incomplete (what was there
 * before is not marked gone): discovery reports what it can see. The kernel's pseudo file systems
 * below a root are not entered (a root of `/` walks neither `/proc` nor `/sys`).
 */
export async function scanFilesystem(
  roots: readonly string[],
  passwords: readonly string[],
  options: FilesystemScanOptions = {},
): Promise<FilesystemScanResult> {
  const limits = options.limits ?? DEFAULT_SCAN_LIMITS;
  const pseudoMounts = options.pseudoMounts ?? readPseudoFilesystemMounts();
  const batches = options.batches;
  const result: FilesystemScanResult = {
    findings: [],
    found: 0,
    filesRead: 0,
    locked: [],
    unreadableRoots: [],
    unreadable: [],
    unreadableCount: 0,
    complete: true,
  };
  const missed = (path: string, error: unknown) => {
    if (VANISHED.has((error as NodeJS.ErrnoException)?.code ?? '')) return;
    result.complete = false;
    result.unreadableCount++;
    if (result.unreadable.length < UNREADABLE_LISTED) result.unreadable.push(path);
  };
  const seen = new Set<string>();
  const visit = async (path: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(path, { withFileTypes: true });
    } catch (error) {
      if (depth === 0) {
        result.unreadableRoots.push(path);
        result.complete = false;
      } else {
        missed(path, error);
      }
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (result.filesRead >= limits.maxFiles || options.signal?.aborted) {
        result.complete = false;
        return;
      }
      const child = join(path, entry.name);
      if (entry.isDirectory()) {
        if (depth < limits.maxDepth && !pseudoMounts.has(child)) await visit(child, depth + 1);
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      if (!CERTIFICATE_FILE_EXTENSIONS.has(extname(entry.name).toLowerCase())) continue;
      if (entry.isSymbolicLink()) {
        const target = await stat(child).catch(() => null);
        if (!target?.isFile()) continue;
      }
      const bytes = await readSmallFile(child, limits.maxFileBytes).catch((error: unknown) => {
        missed(child, error);
        return null;
      });
      if (!bytes) continue;
      result.filesRead++;
      const read = readCertificateFile(bytes, passwords);
      if (!read) continue;
      if (read.locked) result.locked.push(child);
      for (const der of read.certificates) {
        const key = `${child}\n${new X509Certificate(der).fingerprint256}`;
        if (seen.has(key)) continue;
        seen.add(key);
        result.findings.push({ path: child, format: read.format, certificate_pem: toPem(der) });
        result.found++;
      }
      if (batches && result.findings.length >= batches.size) {
        await batches.send(result.findings.splice(0, batches.size));
      }
    }
  };
  for (const root of roots) await visit(root, 0);
  return result;
}
