import {
  AgentHeartbeatBody,
  CreateRenewalPolicyRequest,
  CreatePolicyRuleRequest,
  ListCertificatesRequest,
} from '@certlane/contracts';
import { validateDto } from './validate-dto';

async function fieldsOf(cls: new () => object, input: unknown) {
  try {
    await validateDto(cls, input);
    return undefined;
  } catch (error) {
    return (error as { details?: unknown }).details;
  }
}

describe('validation messages', () => {
  it('says page must be an integer for page=abc (not that it is too large)', async () => {
    expect(await fieldsOf(ListCertificatesRequest, { page: 'abc' })).toEqual({
      fields: [{ field: 'page', message: 'page must be an integer' }],
    });
  });

  it('says a field must be a string when it is a number (not that it is too long)', async () => {
    expect(await fieldsOf(AgentHeartbeatBody, { os: 123 })).toEqual({
      fields: [{ field: 'os', message: 'os must be a string' }],
    });
  });

  it('says a missing required field is required', async () => {
    expect(await fieldsOf(CreateRenewalPolicyRequest, {})).toEqual({
      fields: [
        { field: 'name', message: 'name is required' },
        { field: 'max_retries', message: 'max_retries is required' },
      ],
    });
  });

  it('reports the type rule of a field whose rules are declared type first by a helper', async () => {
    expect(await fieldsOf(CreateRenewalPolicyRequest, { name: 'p', max_retries: 'a' })).toEqual({
      fields: [{ field: 'max_retries', message: 'max_retries must be an integer' }],
    });
  });

  it('keeps the bound message when the type is right', async () => {
    expect(await fieldsOf(CreateRenewalPolicyRequest, { name: 'p', max_retries: 11 })).toEqual({
      fields: [{ field: 'max_retries', message: 'max_retries must be between 0 and 10' }],
    });
  });

  it('gives a body that is not an object the same details shape', async () => {
    expect(await fieldsOf(AgentHeartbeatBody, [])).toEqual({
      fields: [{ field: '', message: 'the request body must be a JSON object' }],
    });
  });

  it('refuses a policy config object whose JSON text exceeds what the store accepts', async () => {
    const config = { allowed: Array.from({ length: 20_000 }, () => 'iss-local') };
    const details = (await fieldsOf(CreatePolicyRuleRequest, {
      name: 'p',
      type: 'AllowedIssuers',
      config,
    })) as { fields: { field: string }[] };
    expect(details.fields.map((f) => f.field)).toEqual(['config']);
  });
});
