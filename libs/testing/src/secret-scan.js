/** Generic shapes of secrets that no response may carry, whatever test produced it. */
const SECRET_SHAPES = [
  { name: 'a PEM private key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
  { name: 'a key_hash field', pattern: /"key_hash"\s*:/ },
  { name: 'an api_key_hash field', pattern: /"api_key_hash"\s*:/ },
  { name: 'a password_hash field', pattern: /"password_hash"\s*:/ },
  { name: 'an scrypt password hash', pattern: /\$scrypt\$/ },
];

/**
 * Every place a recorded secret or a secret shape occurs in a response body.
 * `bodies`: [{url, status, body}]; `secrets`: Map of secret value -> where it came from.
 */
function findSecrets(bodies, secrets) {
  const findings = [];
  for (const { url, status, body } of bodies) {
    for (const [secret, source] of secrets)
      if (body.includes(secret)) findings.push(`${status} ${url}: contains a secret from ${source}`);
    for (const { name, pattern } of SECRET_SHAPES)
      if (pattern.test(body)) findings.push(`${status} ${url}: contains ${name}`);
  }
  return findings;
}

module.exports = { findSecrets, SECRET_SHAPES };
