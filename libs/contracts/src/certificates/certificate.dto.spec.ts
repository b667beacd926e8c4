import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { CreateCertificateRequest } from './certificate.dto';

describe('null in a certificate body (ADR 0049 amendment)', () => {
  it('refuses tags: null naming the field (it was a 500), and takes tags as an object or absent', async () => {
    const refused = async (body: Record<string, unknown>) =>
      (
        await validate(plainToInstance(CreateCertificateRequest, { common_name: 'a.example.com', ...body }))
      ).map((error) => error.property);
    expect(await refused({ tags: null })).toEqual(['tags']);
    expect(await refused({ tags: { team: 'web' } })).toEqual([]);
    expect(await refused({})).toEqual([]);
  });
});
