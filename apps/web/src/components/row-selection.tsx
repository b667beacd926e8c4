import { useEffect, useRef } from 'react';

/** The header checkbox: selects or clears every row of the page; mixed when some are selected. */
export function SelectAll(props: { selected: number; total: number; onChange: (on: boolean) => void }) {
  const box = useRef<HTMLInputElement>(null);
  const some = props.selected > 0 && props.selected < props.total;
  useEffect(() => {
    if (box.current) box.current.indeterminate = some;
  }, [some]);
  return (
    <input
      ref={box}
      type="checkbox"
      aria-label="Select all rows on this page"
      checked={props.total > 0 && props.selected === props.total}
      onChange={(event) => props.onChange(event.target.checked)}
    />
  );
}

/** A row's checkbox, named after the row. */
export function SelectRow(props: { name: string; checked: boolean; onChange: (on: boolean) => void }) {
  return (
    <input
      type="checkbox"
      aria-label={`Select ${props.name}`}
      checked={props.checked}
      onChange={(event) => props.onChange(event.target.checked)}
    />
  );
}
