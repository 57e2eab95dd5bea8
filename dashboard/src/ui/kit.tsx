// The dashboard's controls: React Aria Components (labelled, keyboard-reachable, announced) for
// buttons, text fields, checkboxes and dialogs; native selects for choices (they are accessible
// and work the same on phones).
import { useId, useState, type ReactNode } from "react";
import {
  Button as AriaButton,
  Checkbox as AriaCheckbox,
  Dialog,
  DialogTrigger,
  FieldError,
  Heading,
  Input,
  Label,
  Modal,
  Text,
  TextArea,
  TextField,
} from "react-aria-components";
import { SubBridgeError } from "@subbridge/sdk";

export function Button(props: {
  children: ReactNode;
  onPress?: () => void;
  type?: "button" | "submit";
  variant?: "primary" | "secondary" | "danger";
  isDisabled?: boolean;
  "aria-label"?: string;
}) {
  return (
    <AriaButton
      type={props.type ?? "button"}
      className={`btn ${props.variant ?? "primary"}`}
      onPress={props.onPress}
      isDisabled={props.isDisabled}
      aria-label={props["aria-label"]}
    >
      {props.children}
    </AriaButton>
  );
}

export function Field(props: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  description?: string;
  error?: string | undefined;
  type?: "text" | "email" | "password" | "url" | "number" | "search";
  isRequired?: boolean;
  multiline?: boolean;
  autoComplete?: string;
  inputMode?: "decimal" | "numeric" | "text";
}) {
  return (
    <TextField
      className="field"
      name={props.name}
      value={props.value}
      onChange={props.onChange}
      type={props.type ?? "text"}
      isRequired={props.isRequired}
      isInvalid={Boolean(props.error)}
      autoComplete={props.autoComplete ?? "off"}
      inputMode={props.inputMode}
    >
      <Label>{props.label}</Label>
      {props.multiline ? <TextArea rows={4} /> : <Input />}
      {props.description ? <Text slot="description">{props.description}</Text> : null}
      <FieldError>{props.error}</FieldError>
    </TextField>
  );
}

export function SelectField(props: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly { value: string; label: string }[];
  description?: string;
  error?: string | undefined;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.description ? `${id}-d` : undefined}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {props.description ? (
        <span id={`${id}-d`} className="hint">
          {props.description}
        </span>
      ) : null}
      {props.error ? <span className="field-error">{props.error}</span> : null}
    </div>
  );
}

export function Checkbox(props: { children: ReactNode; isSelected: boolean; onChange: (value: boolean) => void; name?: string }) {
  return (
    <AriaCheckbox className="checkbox" isSelected={props.isSelected} onChange={props.onChange} name={props.name}>
      <span className="box" aria-hidden="true">
        {props.isSelected ? "✓" : ""}
      </span>
      {props.children}
    </AriaCheckbox>
  );
}

/** A button that asks first, in a modal dialog (focus kept inside, Escape closes). */
export function ConfirmButton(props: {
  label: string;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown> | void;
  variant?: "danger" | "secondary" | "primary";
}) {
  const [busy, setBusy] = useState(false);
  return (
    <DialogTrigger>
      <Button variant={props.variant ?? "secondary"}>{props.label}</Button>
      <Modal className="modal" isDismissable>
        <Dialog className="dialog">
          {({ close }) => (
            <>
              <Heading slot="title">{props.title}</Heading>
              <div>{props.children}</div>
              <div className="actions">
                <Button
                  variant={props.variant === "danger" ? "danger" : "primary"}
                  isDisabled={busy}
                  onPress={async () => {
                    setBusy(true);
                    try {
                      await props.onConfirm();
                      close();
                    } finally {
                      setBusy(false);
                    }
                  }}
                >
                  {props.confirmLabel}
                </Button>
                <Button variant="secondary" onPress={close}>
                  Cancel
                </Button>
              </div>
            </>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  );
}

/** An API refusal as a person reads it: the message, what to do, each field's problem. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error instanceof SubBridgeError ? error : null;
  return (
    <div className="notice error" role="alert">
      <p>{e ? e.message : error instanceof Error ? error.message : String(error)}</p>
      {e?.remediation ? <p>{e.remediation}</p> : null}
      {e?.fields ? (
        <ul>
          {Object.entries(e.fields).map(([field, messages]) => (
            <li key={field}>
              <code>{field}</code>: {messages.join(" ")}
            </li>
          ))}
        </ul>
      ) : null}
      {e?.requestId ? <p className="hint">Request id {e.requestId}</p> : null}
    </div>
  );
}

/** The field errors of a VALIDATION_FAILED refusal, by field name (first message each). */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof SubBridgeError) || !error.fields) return {};
  return Object.fromEntries(Object.entries(error.fields).map(([k, v]) => [k, v[0] ?? "is invalid"]));
}

export function Notice({ kind, children }: { kind: "info" | "success" | "error"; children: ReactNode }) {
  return (
    <div className={`notice ${kind}`} role={kind === "error" ? "alert" : "status"}>
      {children}
    </div>
  );
}
