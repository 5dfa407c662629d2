/** CLI commands of this area (placeholder until its issue lands). */
import type { Command } from "commander";

/** Register this area's subcommands on the program. */
export function registerValidateCommands(_program: Command): void {}
