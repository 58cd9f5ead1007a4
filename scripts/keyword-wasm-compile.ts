// The .wat to .wasm step of the keyword search's loop, shared by the build script and the test
// that holds the embedded module equal to its source.
import wabt from 'wabt';

export async function compileKeywordScan(wat: string): Promise<Uint8Array> {
  const tools = await wabt();
  const module = tools.parseWat('keyword-scan.wat', wat);
  try {
    module.validate();
    return module.toBinary({}).buffer;
  } finally {
    module.destroy();
  }
}
