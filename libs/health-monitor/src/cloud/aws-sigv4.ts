import { createHash, createHmac } from 'node:crypto';

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** 20260101T120000Z */
export const amzDate = (now: Date) =>
  now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/**
 * AWS Signature Version 4 for a POST of a JSON-protocol API (Secrets Manager, ACM): the
 * canonical request over host, content-type, x-amz-date and x-amz-target, the string to sign over
 * its SHA-256 and the credential scope, and the HMAC chain of the secret key. Answers the headers
 * to send (the secret key itself never leaves).
 */
export function signAwsJsonRequest(input: {
  url: URL;
  target: string;
  body: string;
  region: string;
  service: string;
  credentials: AwsCredentials;
  now: Date;
}): Record<string, string> {
  const date = amzDate(input.now);
  const day = date.slice(0, 8);
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.1',
    host: input.url.host,
    'x-amz-date': date,
    'x-amz-target': input.target,
  };
  const names = Object.keys(headers).sort();
  const canonicalRequest = [
    'POST',
    input.url.pathname || '/',
    '',
    ...names.map((name) => `${name}:${headers[name].trim()}`),
    '',
    names.join(';'),
    sha256(input.body),
  ].join('\n');
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, scope, sha256(canonicalRequest)].join('\n');
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${input.credentials.secretAccessKey}`, day), input.region), input.service),
    'aws4_request',
  );
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  const { host: _host, ...sent } = headers;
  return {
    ...sent,
    authorization: `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
  };
}
