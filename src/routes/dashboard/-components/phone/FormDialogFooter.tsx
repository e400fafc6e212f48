import { Button } from '../../../../ui/button/button';

/** Cancel and the submit button of a dialog's form (`formId`); while saving, Save spins and Cancel waits. */
export function FormDialogFooter({
  formId,
  busy,
  onCancel,
  saveLabel = 'Save',
}: {
  formId: string;
  busy: boolean;
  onCancel: () => void;
  saveLabel?: string;
}) {
  return (
    <>
      <Button variant="secondary" disabled={busy} onClick={onCancel}>
        Cancel
      </Button>
      <Button type="submit" form={formId} loading={busy}>
        {saveLabel}
      </Button>
    </>
  );
}
