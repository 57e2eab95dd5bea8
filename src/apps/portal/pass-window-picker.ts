// A plan sold as passes for dated windows (issue 46) is bought for one window: its card lists the
// windows not yet ended with their seats left, and its card form asks which one (pass_window).
import { html, type Html } from "../auth/pages/html.ts";
import type { WindowOnSale } from "../../modules/pass-windows/seats.ts";

/** A time as the page shows it (UTC, to the minute). */
const when = (d: Date) => `${new Date(d).toISOString().slice(0, 10)} ${new Date(d).toISOString().slice(11, 16)} UTC`;

const seats = (w: WindowOnSale) =>
  w.seatsLeft === null ? "" : w.seatsLeft === 0 ? " — sold out" : ` — ${w.seatsLeft} ${w.seatsLeft === 1 ? "seat" : "seats"} left`;

/** The plan's windows in words, for a card without a form (not signed in, or no card payments). */
export function passWindowList(windows: WindowOnSale[]): Html {
  if (!windows.length) return html`<p class="hint">No dates are on sale right now.</p>`;
  return html`<p class="includes">Dates:</p>
    <ul class="pass-windows">
      ${windows.map((w) => html`<li>${w.window.name}: ${when(w.window.starts_at)} to ${when(w.window.ends_at)}${seats(w)}</li>`)}
    </ul>`;
}

/** The form's choice of window: one radio per window, a sold-out one disabled; the first with seats chosen. */
export function passWindowPicker(planId: string, windows: WindowOnSale[]): Html {
  const first = windows.find((w) => w.seatsLeft !== 0);
  return html`<fieldset class="pass-windows">
    <legend>Date</legend>
    ${windows.map((w) => {
      const id = `pass-window-${planId}-${w.window.id}`;
      return html`<div>
        <input
          type="radio"
          id="${id}"
          name="pass_window"
          value="${w.window.id}"
          required
          ${w === first ? html`checked` : ""}
          ${w.seatsLeft === 0 ? html`disabled` : ""}
        />
        <label for="${id}">${w.window.name}: ${when(w.window.starts_at)} to ${when(w.window.ends_at)}${seats(w)}</label>
      </div>`;
    })}
  </fieldset>`;
}
