// A platform as people name it in the texts they read (alerts, notices, mail), from its connector key.
const NAMES: Readonly<Record<string, string>> = { telegram: "Telegram", discord: "Discord" };

/** "Telegram" for telegram; a connector without a name here is named by its key. */
export const platformName = (connectorKey: string): string => NAMES[connectorKey] ?? connectorKey;
