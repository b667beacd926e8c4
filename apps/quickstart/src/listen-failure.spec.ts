import { explainListenFailure } from './listen-failure';

const failed = (code: string) => Object.assign(new Error(`listen ${code}`), { code });

describe('explainListenFailure', () => {
  it('names the busy address and SERVICE_PORT', () => {
    expect(explainListenFailure(failed('EADDRINUSE'), '0.0.0.0', 8443)).toBe(
      'cannot listen on 0.0.0.0:8443: the port is already in use (another Certlane quick start?); ' +
        'stop that program or set SERVICE_PORT to a free port',
    );
  });

  it('says why a low port is refused, and brackets an IPv6 address', () => {
    const line = explainListenFailure(failed('EACCES'), '::1', 443);
    expect(line).toContain('cannot listen on [::1]:443: permission denied');
    expect(line).toContain('set SERVICE_PORT');
  });

  it('names SERVICE_LISTEN_ADDRESS for an address the machine does not have', () => {
    expect(explainListenFailure(failed('EADDRNOTAVAIL'), '192.0.2.1', 8443)).toContain(
      'set SERVICE_LISTEN_ADDRESS',
    );
  });

  it('leaves any other error alone', () => {
    expect(explainListenFailure(failed('EMFILE'), '0.0.0.0', 8443)).toBeUndefined();
    expect(explainListenFailure(new Error('boom'), '0.0.0.0', 8443)).toBeUndefined();
    expect(explainListenFailure(undefined, '0.0.0.0', 8443)).toBeUndefined();
  });
});
