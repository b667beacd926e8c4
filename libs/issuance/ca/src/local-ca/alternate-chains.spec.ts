import { alternateChains } from './alternate-chains';

const block = (name: string) => `-----BEGIN CERTIFICATE-----\n${name}\n-----END CERTIFICATE-----\n`;

describe('alternateChains', () => {
  const chain = block('issuing') + block('intermediate') + block('root');

  it('is undefined without cross-certificates', () => {
    expect(alternateChains(chain, [])).toBeUndefined();
  });

  it('keeps the default chain below the cross-certified CA, then the cross-certificate and its tail', () => {
    const tail = block('cross') + block('root2');
    expect(alternateChains(chain, [{ depth: 0, pem: tail }])).toEqual([tail]);
    expect(alternateChains(chain, [{ depth: 1, pem: tail }])).toEqual([block('issuing') + tail]);
    expect(
      alternateChains(chain, [
        { depth: 2, pem: tail },
        { depth: 0, pem: block('imported') },
      ]),
    ).toEqual([block('issuing') + block('intermediate') + tail, block('imported')]);
  });
});
