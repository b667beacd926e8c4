import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';

/** The build that answers: its version and commit, for a bug report or an upgrade check. */
export function VersionLine() {
  const version = useQuery({
    queryKey: ['/api/v1/version'],
    queryFn: () => unwrap(api.GET('/api/v1/version')),
    staleTime: Infinity,
  });
  if (!version.data) return null;
  const { version: number, commit, modified } = version.data;
  return (
    <p>
      Certlane {number} ({commit.slice(0, 12)}
      {modified === 'true' ? ', modified' : ''})
    </p>
  );
}
