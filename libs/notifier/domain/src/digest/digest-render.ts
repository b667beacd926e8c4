import { Digest, digestCounts } from './digest';

export interface RenderedDigest {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const day = (iso: string) => iso.slice(0, 10);
const daysLeft = (iso: string, now: Date) =>
  Math.max(0, Math.floor((Date.parse(iso) - now.getTime()) / 86_400_000));
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

interface Line {
  text: string;
  /** Where the line's link points (GUI). */
  href: string;
  label: string;
  rest: string;
}

interface Section {
  title: string;
  lines: Line[];
}

function sections(digest: Digest, guiUrl: string, now: Date): Section[] {
  const certificate = (id: string) => `${guiUrl}/certificates/${encodeURIComponent(id)}`;
  return [
    {
      title: 'Expiring in the next 30 days',
      lines: digest.expiring.map((c) => ({
        href: certificate(c.certificate_id),
        label: c.common_name,
        rest: `expires ${day(c.expires_at)} (${plural(daysLeft(c.expires_at, now), 'day')} left)${c.environment ? `, ${c.environment}` : ''}`,
        text: '',
      })),
    },
    {
      title: 'Failed renewals and deployments',
      lines: digest.failed_jobs.map((j) => ({
        href: certificate(j.certificate_id),
        label: j.common_name,
        rest: `${j.job_type} failed ${day(j.failed_at)}${j.error ? `: ${j.error.slice(0, 200)}` : ''}`,
        text: '',
      })),
    },
    {
      title: 'Open policy violations',
      lines: digest.violations.map((v) => ({
        href: certificate(v.certificate_id),
        label: v.common_name,
        rest: `${v.severity}: ${v.message.slice(0, 200)}`,
        text: '',
      })),
    },
    {
      title: 'Approvals waiting',
      lines: digest.approvals.map((a) => ({
        href: `${guiUrl}/approvals`,
        label: a.common_name,
        rest: `requested by ${a.requested_by} on ${day(a.requested_at)}`,
        text: '',
      })),
    },
  ]
    .filter((section) => section.lines.length > 0)
    .map((section) => ({
      ...section,
      lines: section.lines.map((line) => ({
        ...line,
        text: `- ${line.label}: ${line.rest}\n  ${line.href}`,
      })),
    }));
}

/**
 * The digest email (issue 22): a subject with the counts, a text part and an HTML part with the
 * same lines, each linking to the certificate (or the approvals page) in the GUI at `guiUrl`.
 */
export function renderDigest(digest: Digest, guiUrl: string, now: Date): RenderedDigest {
  const counts = digestCounts(digest);
  const who = `${digest.kind} ${digest.subject_id}`;
  const summary = [
    plural(counts.expiring, 'expiring certificate'),
    plural(counts.failed_jobs, 'failure'),
    plural(counts.violations, 'violation'),
    plural(counts.approvals, 'approval'),
  ].join(', ');
  const subject = `[Certlane digest] ${who}: ${summary}`.replace(/[\r\n]+/g, ' ');
  const parts = sections(digest, guiUrl, now);
  const text = [
    `Certlane daily digest for ${who}, ${day(now.toISOString())}`,
    summary,
    '',
    ...parts.flatMap((section) => [`${section.title}:`, ...section.lines.map((line) => line.text), '']),
    `Open Certlane: ${guiUrl}/`,
  ].join('\n');
  const html =
    `<!doctype html><html><body><h2>Certlane daily digest for ${escapeHtml(who)}</h2>` +
    `<p>${escapeHtml(day(now.toISOString()))}: ${escapeHtml(summary)}</p>` +
    parts
      .map(
        (section) =>
          `<h3>${escapeHtml(section.title)}</h3><ul>` +
          section.lines
            .map(
              (line) =>
                `<li><a href="${escapeHtml(line.href)}">${escapeHtml(line.label)}</a>: ${escapeHtml(line.rest)}</li>`,
            )
            .join('') +
          '</ul>',
      )
      .join('') +
    `<p><a href="${escapeHtml(guiUrl)}/">Open Certlane</a></p></body></html>`;
  return { subject, text, html };
}
