import { useEffect, useState } from 'react';
import { Command } from 'cmdk';
import { useNavigate } from 'react-router';
import { NAV_ITEMS } from './nav-items';

const QUICK_FILTERS = [
  { to: '/certificates?status=Expiring', label: 'Certificates expiring' },
  { to: '/certificates?status=Failed', label: 'Certificates failed' },
  { to: '/jobs?status=Failed', label: 'Jobs failed' },
  { to: '/approvals?status=pending', label: 'Approvals pending' },
];

/** Ctrl/Cmd+K: go anywhere by typing. cmdk's list in a plain dialog (no injected styles). */
export function CommandPalette() {
  const [open, setOpen] = useState(false);
  const navigate = useNavigate();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() === 'k' && (event.metaKey || event.ctrlKey)) {
        event.preventDefault();
        setOpen((was) => !was);
      } else if (event.key === 'Escape') setOpen(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const go = (to: string) => {
    setOpen(false);
    void navigate(to);
  };
  return (
    <>
      <button
        type="button"
        className="palette-button"
        onClick={() => setOpen(true)}
        aria-keyshortcuts="Control+K"
      >
        Go to… <kbd>Ctrl K</kbd>
      </button>
      {open && (
        <div className="palette-backdrop" onClick={() => setOpen(false)}>
          <div
            role="dialog"
            aria-modal="true"
            aria-label="Command palette"
            className="palette"
            onClick={(e) => e.stopPropagation()}
          >
            <Command label="Command palette">
              <Command.Input autoFocus placeholder="Type a page or a filter…" />
              <Command.List>
                <Command.Empty>Nothing matches.</Command.Empty>
                <Command.Group heading="Pages">
                  {NAV_ITEMS.map((item) => (
                    <Command.Item key={item.to} value={item.label} onSelect={() => go(item.to)}>
                      {item.label}
                    </Command.Item>
                  ))}
                </Command.Group>
                <Command.Group heading="Filters">
                  {QUICK_FILTERS.map((item) => (
                    <Command.Item key={item.to} value={item.label} onSelect={() => go(item.to)}>
                      {item.label}
                    </Command.Item>
                  ))}
                </Command.Group>
              </Command.List>
            </Command>
          </div>
        </div>
      )}
    </>
  );
}
