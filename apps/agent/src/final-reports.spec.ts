import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnsentReports } from './final-reports';

describe(UnsentReports.name, () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'certlane-unsent-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps one report per job, whatever the job id holds, and drops it', () => {
    const reports = new UnsentReports(dir);
    expect(reports.all()).toEqual([]);
    reports.keep({ job_id: '../../etc/passwd', status: 'Failed', error: 'no' });
    reports.keep({ job_id: 'job-1', status: 'Completed' });
    reports.keep({
      job_id: 'job-1',
      status: 'Completed',
      verification: { endpoint: '127.0.0.1:443', result: 'verified' },
    });
    expect(new UnsentReports(dir).all()).toHaveLength(2);
    reports.drop('../../etc/passwd');
    reports.drop('never-kept');
    expect(reports.all()).toEqual([
      {
        job_id: 'job-1',
        status: 'Completed',
        verification: { endpoint: '127.0.0.1:443', result: 'verified' },
      },
    ]);
  });

  it('skips a file that does not read as a report instead of failing every poll', () => {
    mkdirSync(join(dir, 'reports'));
    writeFileSync(join(dir, 'reports', 'broken.json'), '{"job_id": ');
    writeFileSync(join(dir, 'reports', 'other.json'), '[]');
    const reports = new UnsentReports(dir);
    reports.keep({ job_id: 'job-2', status: 'Failed' });
    expect(reports.all()).toEqual([{ job_id: 'job-2', status: 'Failed' }]);
  });
});
