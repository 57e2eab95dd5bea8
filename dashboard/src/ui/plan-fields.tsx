// A plan's price, currency, billing interval and trial: the same fields when a plan is created
// (setup, the Plans page) and edited, so both read and refuse alike.
import { Field, SelectField } from "./kit";

export const CURRENCIES = ["USD", "EUR", "GBP", "CAD", "AUD", "CHF", "JPY", "INR", "BRL", "PLN", "SEK"].map((c) => ({ value: c, label: c }));
export const INTERVALS = [
  { value: "month", label: "Every month" },
  { value: "year", label: "Every year" },
  { value: "week", label: "Every week" },
  { value: "day", label: "Every day" },
  { value: "lifetime", label: "Once (lifetime access)" },
];

export interface PlanTerms {
  price: string;
  currency: string;
  cycle: string;
  trial: string;
}

export function PlanTermsFields(props: {
  terms: PlanTerms;
  onChange: (patch: Partial<PlanTerms>) => void;
  /** The API's refusal, field by field (fieldErrors). */
  problems: Record<string, string | undefined>;
  /** The form's own check of the price (not a number in the currency's units). */
  priceError: string | undefined;
  /** "Plan" on the edit form, which shares the page with the create form: each field keeps its own name. */
  labelPrefix?: string;
}) {
  const { terms, onChange, problems } = props;
  const label = (name: string) => (props.labelPrefix ? `${props.labelPrefix} ${name.toLowerCase()}` : name);
  // A plan made elsewhere (the API, the CLI) may be priced in a currency this list lacks.
  const currencies = CURRENCIES.some((c) => c.value === terms.currency)
    ? CURRENCIES
    : [...CURRENCIES, { value: terms.currency, label: terms.currency }];
  return (
    <>
      <div className="row">
        <Field
          label={label("Price")}
          name="price"
          value={terms.price}
          onChange={(price) => onChange({ price })}
          isRequired
          inputMode="decimal"
          description="In major units, like 9.00"
          error={props.priceError ?? problems["price.amount"] ?? problems.price}
        />
        <SelectField
          label={label("Currency")}
          name="currency"
          value={terms.currency}
          onChange={(currency) => onChange({ currency })}
          options={currencies}
          error={problems["price.currency"]}
        />
      </div>
      <div className="row">
        <SelectField
          label={label("Billing interval")}
          name="billing_cycle"
          value={terms.cycle}
          onChange={(cycle) => onChange({ cycle })}
          options={INTERVALS}
          error={problems.billing_cycle}
        />
        <Field
          label={label("Free trial (days)")}
          name="trial_days"
          value={terms.trial}
          onChange={(trial) => onChange({ trial })}
          inputMode="numeric"
          error={problems.trial_days}
        />
      </div>
    </>
  );
}
