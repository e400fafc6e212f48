import { memo, useState } from 'react';
import type { DynamicVariable } from '../../../../api/contract/agent/records';
import { Button } from '../../../../ui/button/button';
import { PlusIcon } from '../../../../ui/icons';
import { Popover, PopoverDismiss } from '../../../../ui/popover/popover';
import { TextField } from '../../../../ui/text-field/text-field';
import * as s from './editor.css';
import { TrashIcon, useField } from './editor-context';

const blankRows = (): DynamicVariable[] => [
  { name: '', value: '' },
  { name: '', value: '' },
];

/**
 * Dynamic variables (name and test value) used by {{placeholders}}: edited on a copy inside the popover;
 * Save stores the rows on the agent (empty rows dropped, two empty rows when none), Cancel drops the copy.
 */
export const DynamicVariables = memo(function DynamicVariables() {
  const [stored, setStored] = useField('dynamicVariables');
  const [open, setOpen] = useState(false);
  const [rows, setRows] = useState<DynamicVariable[]>(stored);
  const filled = stored.filter((v) => v.name.trim()).length;

  const onOpenChange = (next: boolean) => {
    if (next) setRows(stored.length ? stored.map((r) => ({ ...r })) : blankRows());
    setOpen(next);
  };
  const update = (i: number, patch: Partial<DynamicVariable>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const save = () => {
    const kept = rows.map((r) => ({ name: r.name.trim(), value: r.value })).filter((r) => r.name || r.value);
    setStored(kept.length ? kept : blankRows());
    setOpen(false);
  };

  return (
    <div className={s.card}>
      <h2 className={s.lead}>Dynamic Variables</h2>
      <p className={s.muted}>
        {filled ? `${filled} variable${filled === 1 ? '' : 's'} set.` : 'Values for {{placeholders}} while testing.'}
      </p>
      <Popover
        title="Dynamic Variables"
        open={open}
        onOpenChange={onOpenChange}
        placement="bottom-end"
        trigger={<Button variant="secondary">Dynamic Variables</Button>}
      >
        <div className={s.stack}>
          {rows.map((r, i) => (
            <div key={i} className={s.varRow}>
              <TextField
                label={`Variable name ${i + 1}`}
                hideLabel
                placeholder="Name"
                value={r.name}
                onChange={(e) => update(i, { name: e.target.value })}
              />
              <TextField
                label={`Test value ${i + 1}`}
                hideLabel
                placeholder="Test value"
                value={r.value}
                onChange={(e) => update(i, { value: e.target.value })}
              />
              <Button
                variant="ghost"
                size="iconSm"
                aria-label={`Remove variable ${i + 1}`}
                onClick={() => setRows(rows.filter((_, j) => j !== i))}
              >
                <TrashIcon />
              </Button>
            </div>
          ))}
          <div>
            <Button size="sm" variant="secondary" onClick={() => setRows([...rows, { name: '', value: '' }])}>
              <PlusIcon />
              Add
            </Button>
          </div>
        </div>
        <div className={s.popoverActions}>
          <PopoverDismiss render={<Button variant="secondary" />}>Cancel</PopoverDismiss>
          <Button onClick={save}>Save</Button>
        </div>
      </Popover>
    </div>
  );
});
