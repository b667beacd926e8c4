import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { CreateHealthCheckRequest, HealthCheckChanges } from './health-check.dto';

const refusedFields = async (cls: new () => object, body: Record<string, unknown>) =>
  (await validate(plainToInstance(cls, body))).map((error) => error.property);

describe('the host of a health check', () => {
  it('is required on create, null or missing alike (it reached the NOT NULL column unnamed)', async () => {
    expect(await refusedFields(CreateHealthCheckRequest, {})).toEqual(['host']);
    expect(await refusedFields(CreateHealthCheckRequest, { host: null })).toEqual(['host']);
    expect(await refusedFields(CreateHealthCheckRequest, { host: 'web.example.com' })).toEqual([]);
  });

  it('may be left out of an update', async () => {
    expect(await refusedFields(HealthCheckChanges, { port: 443 })).toEqual([]);
  });
});
