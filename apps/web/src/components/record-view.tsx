import { redactSecrets } from '../lib/redact';
import { Row } from '../pages/resource-pages';

/** Every field of a record, secret-named values redacted (spec 2.12). */
export function RecordView({ row, title }: { row: Row; title: string }) {
  const shown = redactSecrets(row) as Row;
  return (
    <section className="record" aria-label={title}>
      <h2>{title}</h2>
      <dl className="fields">
        {Object.entries(shown).map(([key, value]) => (
          <div key={key} className="field-row">
            <dt>{key}</dt>
            <dd>
              {value !== null && typeof value === 'object' ? (
                <pre className="mono">{JSON.stringify(value, null, 2)}</pre>
              ) : value === null || value === '' ? (
                '—'
              ) : (
                String(value)
              )}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
