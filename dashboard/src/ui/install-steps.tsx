// A connector's install steps as its package wrote them (the catalog card's fields): numbered, with
// `:button` read as the label of the button that submits this form and each linked text linked, so
// the dashboard says what the manifest says instead of a copy of it.
import type { ReactNode } from "react";

interface StepsField {
  steps: string[];
  links: { text: string; url: string }[];
}

/** `text` with the first appearance of each linked text made a link (opened in a new tab). */
function linked(text: string, links: StepsField["links"]): ReactNode[] {
  const parts: ReactNode[] = [text];
  for (const { text: anchor, url } of links) {
    const at = parts.findIndex((p) => typeof p === "string" && p.includes(anchor));
    if (at < 0) continue;
    const [before, ...rest] = (parts[at] as string).split(anchor);
    parts.splice(
      at,
      1,
      before,
      <a key={anchor} href={url} target="_blank" rel="noreferrer">
        {anchor}
      </a>,
      rest.join(anchor),
    );
  }
  return parts.filter((p) => p !== "");
}

export function InstallSteps({ fields, button }: { fields: readonly StepsField[] | undefined; button: string }) {
  const steps = (fields ?? []).flatMap((f) => f.steps.map((step) => ({ step: step.replaceAll(":button", `“${button}”`), links: f.links })));
  if (!steps.length) return null;
  return (
    <ol className="how">
      {steps.map(({ step, links }, i) => (
        <li key={i}>{linked(step, links)}</li>
      ))}
    </ol>
  );
}
