import { fileResult, MAX_FILE_BYTES } from './tool-results';

const answer = (mediaType: string, body: string | Buffer, truncated = false) => ({
  status: 200,
  mediaType,
  bytes: Buffer.isBuffer(body) ? body : Buffer.from(body),
  truncated,
});

describe('file answers as tool content', () => {
  it('hands PEM, YAML and JSON over as text', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    expect(fileResult(answer('application/x-pem-file', pem), 'certlane:/x')).toEqual({
      content: [{ type: 'text', text: pem }],
    });
    expect(fileResult(answer('application/json', '{"a":1}'), 'certlane:/x').content[0]).toEqual({
      type: 'text',
      text: '{"a":1}',
    });
  });

  it('hands DER and PKCS#12 over as a base64 resource blob with its media type', () => {
    const der = Buffer.from([0x30, 0x82, 0x01, 0x00, 0xff]);
    expect(fileResult(answer('application/pkix-crl', der), 'certlane:/api/v1/crl/i-1')).toEqual({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'certlane:/api/v1/crl/i-1',
            mimeType: 'application/pkix-crl',
            blob: der.toString('base64'),
          },
        },
      ],
    });
  });

  it('keeps the whole lines of a truncated NDJSON stream and says how to narrow it', () => {
    const result = fileResult(answer('application/x-ndjson', '{"n":1}\n{"n":2}\n{"n":', true), 'certlane:/a');
    expect(result.isError).toBeUndefined();
    expect(result.content[0]).toEqual({ type: 'text', text: '{"n":1}\n{"n":2}\n' });
    expect(result.content[1]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/first 2 lines.*from, to, limit/),
    });
  });

  it('refuses any other truncated file as a tool error', () => {
    const result = fileResult(answer('application/x-pkcs12', Buffer.alloc(8), true), 'certlane:/p');
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining(`${MAX_FILE_BYTES} bytes`) });
  });
});
