import {
  CertificateAuthority,
  createSelfSignedCa,
  intermediateCaTemplate,
  parseCertificate,
  SoftwareKeyProvider,
  toPem,
} from '@certlane/pki';
import { crossSign, heldIssuerOf, importedCrossCertificateProblem } from './cross-signing';

const provider = new SoftwareKeyProvider();
const DAY_MS = 86_400_000;
const now = new Date();

async function root(name: string, days = 365, pathLength?: number) {
  const { signer } = await provider.generate({ algorithm: 'ECDSA', curve: 'P-256' });
  const issued = await createSelfSignedCa({
    subject: [['CN', name]],
    signer,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + days * DAY_MS),
    pathLength,
  });
  return { signer, certificate: parseCertificate(issued.der) };
}

describe('cross-signing', () => {
  it("certifies the CA's exact subject and key as a CA, ending with the CA unless told, within the parent", async () => {
    const ca = await root('Old Root', 100, 1);
    const parent = await root('New Root', 50);
    const cross = await crossSign(
      { certificatePem: toPemOf(ca.certificate.der) },
      { id: 'ca-new', certificatePem: toPemOf(parent.certificate.der), signer: parent.signer },
      undefined,
      now,
    );
    expect(cross.subject.der.equals(ca.certificate.subject.der)).toBe(true);
    expect(cross.publicKey.spki.equals(ca.certificate.publicKey.spki)).toBe(true);
    expect(cross.issuer.der.equals(parent.certificate.subject.der)).toBe(true);
    expect(cross.decoded.basicConstraints).toMatchObject({ ca: true, pathLength: 1 });
    // Clamped to the parent's notAfter (50 days), not the CA's own (100 days).
    expect(cross.notAfter.getTime()).toBe(Math.floor(parent.certificate.notAfter.getTime() / 1000) * 1000);
    expect(importedCrossCertificateProblem(cross, ca.certificate, now)).toBeNull();
    expect(
      heldIssuerOf(cross, [
        { certificate_pem: toPemOf(ca.certificate.der) },
        { certificate_pem: toPemOf(parent.certificate.der) },
      ]),
    ).toEqual({ certificate_pem: toPemOf(parent.certificate.der) });
  });

  it('refuses a parent whose pathLength is 0 as a 400', async () => {
    const ca = await root('Some CA');
    const parent = await root('Leaf-only CA', 365, 0);
    await expect(
      crossSign(
        { certificatePem: toPemOf(ca.certificate.der) },
        { id: 'ca-p', certificatePem: toPemOf(parent.certificate.der), signer: parent.signer },
      ),
    ).rejects.toMatchObject({ code: 'csr_invalid', details: { rule: 'issuer_invalid' } });
  });

  it('names why an imported certificate is not a cross-certificate of the CA', async () => {
    const ca = await root('Imported For');
    const other = await root('Someone Else');
    const external = await root('External');
    const authority = new CertificateAuthority({
      certificate: external.certificate,
      signer: external.signer,
    });
    const sign = async (subject: Buffer, publicKey = ca.certificate.publicKey, notAfterDays = 10) =>
      parseCertificate(
        (
          await authority.issue(
            intermediateCaTemplate({
              subject,
              publicKey,
              notBefore: new Date(now.getTime() - 1000),
              notAfter: new Date(now.getTime() + notAfterDays * DAY_MS),
            }),
          )
        ).der,
      );
    const rule = (certificate: ReturnType<typeof parseCertificate>) =>
      importedCrossCertificateProblem(certificate, ca.certificate, now)?.rule;
    expect(rule(await sign(ca.certificate.subject.der))).toBeUndefined();
    expect(rule(await sign(other.certificate.subject.der))).toBe('subject_mismatch');
    expect(rule(await sign(ca.certificate.subject.der, other.certificate.publicKey))).toBe('key_mismatch');
    expect(rule(ca.certificate)).toBe('self_issued');
    const later = await sign(ca.certificate.subject.der);
    expect(
      importedCrossCertificateProblem(later, ca.certificate, new Date(now.getTime() + 20 * DAY_MS))?.rule,
    ).toBe('not_valid_now');
  });
});

function toPemOf(der: Buffer): string {
  return toPem('CERTIFICATE', der);
}
