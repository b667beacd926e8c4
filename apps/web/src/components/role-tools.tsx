import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { ErrorNotice } from './widgets';

/**
 * Every permission a role may hold, in catalogue order, with the built-in roles that hold it.
 * Folded; its table is drawn only when opened, so the page's first table stays the roles.
 */
export function PermissionCatalogue() {
  const [open, setOpen] = useState(false);
  const catalogue = useQuery({
    queryKey: ['/api/v1/auth/roles', 'permissions'],
    queryFn: () => unwrap(api.GET('/api/v1/auth/permissions')),
    staleTime: Infinity,
  });
  return (
    <section aria-label="Permission catalogue">
      <ErrorNotice error={catalogue.error} />
      {catalogue.data && (
        <details className="record" onToggle={(event) => setOpen(event.currentTarget.open)}>
          <summary>Permission catalogue ({catalogue.data.total} permissions)</summary>
          {open && (
            <table>
              <thead>
                <tr>
                  <th scope="col">Permission</th>
                  <th scope="col">Built-in roles holding it</th>
                </tr>
              </thead>
              <tbody>
                {catalogue.data.data.map((permission) => (
                  <tr key={permission.name}>
                    <td>{permission.name}</td>
                    <td>{permission.default_roles.length > 0 ? permission.default_roles.join(', ') : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </details>
      )}
    </section>
  );
}
