import { DEFAULT_LLM_MODEL, LLM_MODELS } from '../../api/contract/models';
import { Badge } from '../../ui/badge/badge';
import * as s from './landing.css';

const usd = (n: number) => `$${n.toString()}`;

export function Pricing() {
  return (
    <section id="pricing" className={s.section} aria-labelledby="pricing-title">
      <div className={s.container}>
        <div className={s.sectionHead}>
          <p className={s.kicker}>Pricing</p>
          <h2 id="pricing-title" className={s.h2}>
            Pay per minute, per model
          </h2>
          <p className={s.sectionLead}>
            No seats, no minimums. Choose the language model for each agent and pay only for the minutes it talks.
          </p>
        </div>
        <div className={s.priceTable}>
          <ul aria-label="Price per minute by language model">
            {LLM_MODELS.map((m) => {
              const isDefault = m.id === DEFAULT_LLM_MODEL;
              return (
                <li key={m.id} className={`${s.priceRow} ${isDefault ? s.priceRowDefault : ''}`}>
                  <span className={s.priceModel}>{m.label}</span>
                  {isDefault ? <Badge tone="solid">Default</Badge> : null}
                  <span className={s.price}>
                    {usd(m.pricePerMinute)}
                    <span className={s.priceUnit}> /min</span>
                  </span>
                </li>
              );
            })}
          </ul>
          <p className={s.priceFoot}>Model price per minute of call. Connect your own provider keys from the dashboard.</p>
        </div>
      </div>
    </section>
  );
}
