import { defaults } from "./config";

function main(): void {
  console.log(`starting ${defaults.name}`);
}

main();
