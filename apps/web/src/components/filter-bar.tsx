import { FormEvent } from 'react';
import { ResourceFilter } from '../pages/resource-pages';

/** One control per filter the operation accepts: a menu for enums, a text field otherwise. */
export function FilterBar(props: {
  filters: readonly ResourceFilter[];
  values: Record<string, string>;
  onChange: (name: string, value: string) => void;
  onApply: (values: Record<string, string>) => void;
}) {
  const submitText = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const values = { ...props.values };
    for (const filter of props.filters) values[filter.name] = String(form.get(filter.name) ?? '').trim();
    props.onApply(values);
  };
  return (
    <form className="filters" role="search" aria-label="Filters" onSubmit={submitText}>
      {props.filters.map((filter) => (
        <label key={filter.name}>
          {filter.label}{' '}
          {filter.options ? (
            <select
              name={filter.name}
              value={props.values[filter.name] ?? ''}
              onChange={(event) => props.onChange(filter.name, event.target.value)}
            >
              <option value="">Any</option>
              {filter.options.map((option) => (
                <option key={option}>{option}</option>
              ))}
            </select>
          ) : (
            <input
              name={filter.name}
              defaultValue={props.values[filter.name] ?? ''}
              key={props.values[filter.name] ?? ''}
            />
          )}
        </label>
      ))}
      {props.filters.some((filter) => !filter.options) && <button type="submit">Apply</button>}
    </form>
  );
}
