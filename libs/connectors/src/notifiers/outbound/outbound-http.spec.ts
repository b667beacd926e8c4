import { GuardedHttp } from './outbound-http';
import { networkList } from './reserved-addresses';

/** How a call ended within `ms`: its result or error, or 'still waiting'. */
async function within(ms: number, call: Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const waiting = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), ms);
  });
  try {
    return await Promise.race([
      call.then(
        () => 'answered',
        (error: Error) => error.message,
      ),
      waiting,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe(GuardedHttp.name, () => {
  // A resolver that never answers (a DNS server dropping the query): the lookup hangs.
  const silent = new GuardedHttp({
    allowed: networkList([]),
    timeoutMs: 200,
    resolve: () => new Promise(() => undefined),
  });

  it('the send deadline covers name resolution: a resolver that never answers fails the send in time', async () => {
    const started = Date.now();
    const outcome = await within(
      2_000,
      silent.send({ method: 'POST', url: 'https://hooks.example.com/x', headers: {}, body: '{}' }),
    );
    expect(outcome).toBe('hooks.example.com was not resolved within 200 ms');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('a checked address for a non-HTTP dial (SMTP) is resolved within the timeout too', async () => {
    expect(await within(2_000, silent.checkedAddress('smtp.example.com'))).toBe(
      'smtp.example.com was not resolved within 200 ms',
    );
  });

  it('a resolver that answers in time is used as before', async () => {
    const http = new GuardedHttp({
      allowed: networkList([]),
      timeoutMs: 200,
      resolve: async () => ({ address: '192.0.2.1', family: 4 }),
    });
    expect(await within(2_000, http.checkedAddress('hooks.example.com'))).toMatch(
      /resolves to 192\.0\.2\.1, a reserved address/,
    );
  });
});
