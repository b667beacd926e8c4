import { readFileSync } from 'node:fs';

/**
 * Kernel interfaces mounted as file systems: no certificate lives there, and walking them is
 * slow (`/proc` has a directory per process) and full of entries even root may not read, which
 * would leave a walk of `/` incomplete for ever (nothing marked gone). tmpfs, devtmpfs and
 * overlay are not among them: secrets are mounted as tmpfs (`/run/secrets`).
 */
export const PSEUDO_FILESYSTEM_TYPES = new Set([
  'autofs',
  'binfmt_misc',
  'bpf',
  'cgroup',
  'cgroup2',
  'configfs',
  'debugfs',
  'devpts',
  'efivarfs',
  'fusectl',
  'hugetlbfs',
  'mqueue',
  'nsfs',
  'proc',
  'pstore',
  'rpc_pipefs',
  'securityfs',
  'selinuxfs',
  'sysfs',
  'tracefs',
]);

/** `\040`-style octal escapes of mountinfo paths (a space, a tab, a newline, a backslash). */
const unescape = (path: string) =>
  path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/**
 * The mount points of pseudo file systems in a `/proc/<pid>/mountinfo` text (proc(5)): field 5 is
 * the mount point, and the file system type follows the ` - ` separator after the optional fields.
 */
export function pseudoFilesystemMounts(mountinfo: string): Set<string> {
  const mounts = new Set<string>();
  for (const line of mountinfo.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (fields.length < 5 || separator < 0) continue;
    if (PSEUDO_FILESYSTEM_TYPES.has(fields[separator + 1])) mounts.add(unescape(fields[4]));
  }
  return mounts;
}

/** This process's pseudo file system mount points (none where there is no mountinfo: not Linux). */
export function readPseudoFilesystemMounts(): Set<string> {
  try {
    return pseudoFilesystemMounts(readFileSync('/proc/self/mountinfo', 'utf8'));
  } catch {
    return new Set();
  }
}
