export interface Config {
  name: string;
  retries: number; // TODO: make configurable per call
}

export const defaults: Config = { name: "demo", retries: 3 };
