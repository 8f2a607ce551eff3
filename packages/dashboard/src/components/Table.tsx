// A table that scrolls sideways on narrow screens, with column headers for screen readers; the last
// column of a table with `actions` holds a row's buttons and is named only for them.
import { type ReactNode, useLayoutEffect, useRef } from 'react';

interface TableProps {
  columns: string[];
  caption?: string;
  actions?: boolean;
  children: ReactNode;
}

export function Table({ columns, caption, actions = false, children }: TableProps) {
  const table = useRef<HTMLTableElement>(null);
  // On a phone each row becomes a small card: every cell is labelled with its column's name.
  useLayoutEffect(() => {
    for (const row of table.current?.tBodies[0]?.rows ?? []) {
      [...row.cells].forEach((cell, i) => {
        const name = columns[i];
        if (name) cell.dataset.label = name;
      });
    }
  });
  return (
    <div className="table-wrap">
      <table ref={table}>
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
            {actions && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
