import { useState } from 'react';
import { Button } from '../../../../ui/button/button';
import { Checkbox } from '../../../../ui/checkbox/checkbox';
import { Dialog } from '../../../../ui/dialog/dialog';
import { ChevronDownIcon, ChevronUpIcon } from '../../../../ui/icons';
import * as s from './call-history.css';
import { type ColumnLayout, defaultLayout } from './column-layout';

export interface CustomizeFieldsDialogProps {
  open: boolean;
  onClose: () => void;
  /** the layout in use (the dialog edits a copy) */
  layout: ColumnLayout;
  /** every column id in its default order */
  columnIds: readonly string[];
  labelOf: (id: string) => string;
  onSave: (layout: ColumnLayout) => void;
}

/**
 * 'Customize Field' (the spec shows the button without behaviour; users expect this): choose which
 * columns the table shows and in what order. Save remembers the layout for the signed-in account;
 * 'Reset to default' puts every column back in its default order.
 */
export function CustomizeFieldsDialog({ open, onClose, layout, columnIds, labelOf, onSave }: CustomizeFieldsDialogProps) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Customize Field"
      description="Choose the columns to show and their order."
      size="sm"
    >
      {open ? <FieldsForm layout={layout} columnIds={columnIds} labelOf={labelOf} onSave={onSave} onClose={onClose} /> : null}
    </Dialog>
  );
}

function FieldsForm({ layout, columnIds, labelOf, onSave, onClose }: Omit<CustomizeFieldsDialogProps, 'open'>) {
  const [draft, setDraft] = useState<ColumnLayout>(layout);
  const shown = draft.order.filter((id) => !draft.hidden.includes(id));
  const move = (index: number, by: -1 | 1) => {
    const order = [...draft.order];
    const [id] = order.splice(index, 1);
    order.splice(index + by, 0, id!);
    setDraft({ ...draft, order });
  };
  const toggle = (id: string, visible: boolean) =>
    setDraft({ ...draft, hidden: visible ? draft.hidden.filter((h) => h !== id) : [...draft.hidden, id] });

  return (
    <form
      className={s.dialogFields}
      onSubmit={(e) => {
        e.preventDefault();
        onSave(draft);
        onClose();
      }}
    >
      <ul className={s.fieldList} aria-label="Columns">
        {draft.order.map((id, index) => {
          const label = labelOf(id);
          const visible = !draft.hidden.includes(id);
          return (
            <li key={id} className={s.fieldRow}>
              <Checkbox
                label={label}
                checked={visible}
                // one column at least stays
                disabled={visible && shown.length === 1}
                onCheckedChange={(checked) => toggle(id, checked)}
              />
              <span className={s.fieldMoves}>
                <Button
                  variant="ghost"
                  size="icon"
                  aria-label={`Move ${label} up`}
                  disabled={index === 0}
                  onClick={() => move(index, -1)}
                >
                  <ChevronUpIcon />
                </Button>
                <Button
                  variant="ghost"
                  size="icon"
                  aria-label={`Move ${label} down`}
                  disabled={index === draft.order.length - 1}
                  onClick={() => move(index, 1)}
                >
                  <ChevronDownIcon />
                </Button>
              </span>
            </li>
          );
        })}
      </ul>
      <div className={s.toolbar}>
        <Button variant="ghost" onClick={() => setDraft(defaultLayout(columnIds))}>
          Reset to default
        </Button>
        <span className={s.spacer} />
        <Button variant="secondary" onClick={onClose}>
          Cancel
        </Button>
        <Button type="submit">Save</Button>
      </div>
    </form>
  );
}
