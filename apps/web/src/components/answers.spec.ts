import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describeAnswer, pendingApprovalId } from './row-actions';
import { onceSecret, ShownOnce } from './shown-once';

describe('answers that need more than a line', () => {
  it('says a change waiting for approval (202 {pending_approval_id}) was not applied, naming the approval', () => {
    const answer = { pending_approval_id: 'apr-1' };
    expect(pendingApprovalId(answer)).toBe('apr-1');
    expect(describeAnswer(answer)).toBe(
      'not applied yet: it waits for approval apr-1 by another person (Approvals page).',
    );
    expect(describeAnswer(answer)).not.toMatch(/Done|Saved/);
    expect(pendingApprovalId({ id: 'p', name: 'web' })).toBeUndefined();
  });

  it('never puts a shown-once secret in the status text; the ShownOnce box holds it', () => {
    const answers = [
      { id: 'key-1', key: 'SECRET-API-KEY' },
      { id: 'eab-1', hmac_key: 'SECRET-HMAC' },
      { id: 'kek-1', secret_key: 'SECRET-AES' },
    ];
    for (const answer of answers) {
      const secret = onceSecret(answer)!;
      expect(secret.value).toMatch(/^SECRET-/);
      expect(describeAnswer(answer)).not.toContain('SECRET-');
      expect(describeAnswer(answer)).toContain('copy');
    }
    expect(onceSecret({ id: 'team-a', name: 'A' })).toBeUndefined();
    expect(onceSecret(undefined)).toBeUndefined();
  });

  it('draws the secret with Copy and a dismissal', () => {
    const html = renderToStaticMarkup(
      createElement(ShownOnce, {
        secret: { label: 'The new API key', value: 'SECRET-API-KEY' },
        onDismiss: () => undefined,
      }),
    );
    expect(html).toContain('aria-label="Shown only now"');
    expect(html).toContain('The new API key, shown only now');
    expect(html).toContain('SECRET-API-KEY');
    expect(html).toContain('>Copy</button>');
    expect(html).toContain('>I have stored it</button>');
  });
});
