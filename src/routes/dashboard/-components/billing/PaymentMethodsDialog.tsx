import { Link } from '@tanstack/react-router';
import { BILLING_MESSAGES } from '../../../../api/contract/billing';
import { Button } from '../../../../ui/button/button';
import { Dialog } from '../../../../ui/dialog/dialog';
import { InfoIcon } from '../../../../ui/icons';
import * as p from '../page.css';

/**
 * 'Change payment methods': Parley takes no card payments, so this says how costs are actually paid (by
 * each provider, under the company's own keys) and where those keys live. The billing contact printed on
 * invoices has its own dialog, ContactDialog.tsx, behind 'Manage billing info'.
 */
export function PaymentMethodsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={BILLING_MESSAGES.paymentMethodsTitle}
      footer={<Button onClick={onClose}>Done</Button>}
    >
      <p className={p.info}>
        <InfoIcon size={16} />
        {BILLING_MESSAGES.paymentsOutOfScope}
      </p>
      <p>{BILLING_MESSAGES.paymentMethodsHowPaid}</p>
      <p>
        <Link to="/dashboard/providers" className={p.link}>
          Open Providers
        </Link>
      </p>
    </Dialog>
  );
}
