import { createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';
import * as v from 'valibot';
import { MonthSchema } from '../../api/contract/month';
import { Button } from '../../ui/button/button';
import { Tab, TabList, TabPanel, Tabs } from '../../ui/tabs/tabs';
import { optionalParam } from '../-lib/search';
import { ContactDialog, useContactDialog } from './-components/billing/ContactDialog';
import { LimitsForm } from './-components/billing/LimitsForm';
import { PaymentMethodsDialog } from './-components/billing/PaymentMethodsDialog';
import { StatementsTable } from './-components/billing/StatementsTable';
import { UsagePanel } from './-components/billing/UsagePanel';
import { monthOf } from './-components/format';
import { PageHeader } from './-components/PageHeader';

export const BILLING_TABS = ['history', 'usage', 'limits'] as const;
type BillingTab = (typeof BILLING_TABS)[number];
const TAB_IDS: Record<BillingTab, string> = {
  history: 'billing-tab-history',
  usage: 'billing-tab-usage',
  limits: 'billing-tab-limits',
};

/** ?tab=history|usage|limits and ?month=yyyy-MM (Usage); anything else falls back instead of crashing. */
const BillingSearch = v.fallback(
  v.object({ tab: optionalParam(v.picklist(BILLING_TABS)), month: optionalParam(MonthSchema) }),
  {},
);

export const Route = createFileRoute('/dashboard/billing')({
  validateSearch: BillingSearch,
  component: BillingPage,
});

function BillingPage() {
  const search = Route.useSearch();
  const navigate = Route.useNavigate();
  const tab = search.tab ?? 'history';
  const contact = useContactDialog();
  const [paymentsOpen, setPaymentsOpen] = useState(false);
  const select = (id: string) => {
    const next = BILLING_TABS.find((t) => TAB_IDS[t] === id) ?? 'history';
    void navigate({ search: (prev) => ({ ...prev, tab: next === 'history' ? undefined : next }), replace: true });
  };
  return (
    <>
      <PageHeader
        title="Billing"
        description="Your statements, what you used, and the limits batch calls respect."
        actions={
          <>
            <Button variant="secondary" onClick={() => setPaymentsOpen(true)}>
              Change payment methods
            </Button>
            <Button variant="secondary" onClick={contact.open}>
              Manage billing info
            </Button>
          </>
        }
      />
      <Tabs selectedId={TAB_IDS[tab]} onChange={select}>
        <TabList aria-label="Billing">
          <Tab id={TAB_IDS.history}>Billing History</Tab>
          <Tab id={TAB_IDS.usage}>Usage</Tab>
          <Tab id={TAB_IDS.limits}>Limits</Tab>
        </TabList>
        <TabPanel tabId={TAB_IDS.history}>
          <StatementsTable />
        </TabPanel>
        <TabPanel tabId={TAB_IDS.usage}>
          <UsagePanel
            month={search.month ?? monthOf(new Date())}
            onMonthChange={(month) => void navigate({ search: (prev) => ({ ...prev, month }), replace: true })}
          />
        </TabPanel>
        <TabPanel tabId={TAB_IDS.limits}>
          <LimitsForm />
        </TabPanel>
      </Tabs>
      <ContactDialog form={contact} />
      <PaymentMethodsDialog open={paymentsOpen} onClose={() => setPaymentsOpen(false)} />
    </>
  );
}
