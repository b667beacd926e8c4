import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A CA reached through scripts, for the script issuer's tests: a real openssl CA (an ECDSA root in
 * `<dir>/ca`) and the operator's programs in `<dir>/scripts` (SERVICE_ISSUER_SCRIPTS_DIR). Each
 * script takes the CA directory as its one argument, as an issuer's command names it.
 */
export interface OpensslCaScripts {
  /** SERVICE_ISSUER_SCRIPTS_DIR. */
  scriptsDir: string;
  /** The CA's files: ca.pem, ca.key, and what the scripts log (revoked.log, last-issue.env). */
  caDir: string;
  caPem: string;
  /** The command of script `name` (issue, revoke, refuse, tempfail, revoke-fail, delayed, slow, wrong-key). */
  command(name: string): string;
}

const SCRIPTS: Record<string, string> = {
  // Signs the CSR on standard input; prints the leaf, then the CA.
  issue: `set -eu
ca="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/req.csr"
env > "$ca/last-issue.env"
if ! openssl x509 -req -in "$work/req.csr" -CA "$ca/ca.pem" -CAkey "$ca/ca.key" -copy_extensions copyall \\
  -days "\${CERTLANE_VALIDITY_DAYS:-30}" -set_serial "0x$(openssl rand -hex 16)" -out "$work/leaf.pem" 2> "$work/err"; then
  cat "$work/err" >&2
  exit 1
fi
echo "issued by the script CA"
cat "$work/leaf.pem" "$ca/ca.pem"
`,
  revoke: `set -eu
printf '%s %s\\n' "$CERTLANE_SERIAL" "$CERTLANE_REASON" >> "$1/revoked.log"
`,
  refuse: `cat > /dev/null
echo "checking the request" >&2
echo "policy: names under example.org are not issued here" >&2
exit 2
`,
  tempfail: `cat > /dev/null
echo "the upstream CA is in maintenance" >&2
exit 75
`,
  'revoke-fail': `echo "serial $CERTLANE_SERIAL is unknown at the CA" >&2
exit 3
`,
  // A CA that takes longer than a request may wait on the bus, then issues.
  delayed: `sleep 6
exec "$(dirname "$0")/issue" "$1"
`,
  // Starts a child that would outlive a timeout that killed only the script.
  slow: `sleep 300 &
wait
`,
  // Prints a certificate for another key: the CA's own.
  'wrong-key': `cat > /dev/null
cat "$1/ca.pem"
`,
};

export function writeOpensslCaScripts(dir: string): OpensslCaScripts {
  const scriptsDir = join(dir, 'scripts');
  const caDir = join(dir, 'ca');
  mkdirSync(scriptsDir, { recursive: true });
  mkdirSync(caDir, { recursive: true });
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      join(caDir, 'ca.key'),
      '-out',
      join(caDir, 'ca.pem'),
      '-days',
      '30',
      '-subj',
      '/O=Script CA Test/CN=Script CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    { stdio: 'pipe' },
  );
  for (const [name, body] of Object.entries(SCRIPTS)) {
    const path = join(scriptsDir, name);
    writeFileSync(path, `#!/bin/sh\n${body}`);
    chmodSync(path, 0o755);
  }
  return {
    scriptsDir,
    caDir,
    caPem: readFileSync(join(caDir, 'ca.pem'), 'utf8'),
    command: (name) => `${join(scriptsDir, name)} ${caDir}`,
  };
}
