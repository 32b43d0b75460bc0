import { loadConfigFile } from '../config/load.js';
import { resolvePaths, userHome } from '../core/home.js';
import { chatEngineFor } from '../harnesses/index.js';
import { runChecks } from '../doctor/checks.js';
import { formatReport } from '../doctor/report.js';

export async function runDoctorCommand(): Promise<void> {
  const paths = resolvePaths();
  const config = await loadConfigFile(paths.configFile, userHome(), chatEngineFor);
  const { text, exitCode } = formatReport(await runChecks({ paths, config, home: userHome() }));
  console.log(text);
  process.exitCode = exitCode;
}
