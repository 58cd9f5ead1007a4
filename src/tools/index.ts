// The implemented tools, in catalog order. Catalog names not listed here are pending (README).
import { CATALOG, type ToolDefinition } from './registry.ts';
import { svcConnect, svcGetStarted, svcNode, svcTerms } from './setup.ts';
import { svcGrant, svcPolicy, svcProofs, svcRegisterTable, svcRevoke, svcVerify } from './govern.ts';
import { svcDecide, svcRead, svcRetrieve, svcUse } from './scoped-agent.ts';
import { svcRules } from './rules.ts';
import { svcPlan, svcScanFeedback, svcScanFolder } from './scan.ts';
import { svcRedact } from './redact.ts';
import { svcOpen, svcProtect, svcSealRevoke, svcWrap } from './lock.ts';
import { svcRun } from './run.ts';
import { svcDecrypt, svcEncrypt } from './age.ts';
import { svcCodeAdvise, svcCodePatch } from './code.ts';
import { svcApiList, svcApiRead, svcApiWrite, svcConnectSource } from './sources.ts';
import { svcBurn, svcDeliver, svcLinkStatus, svcSend } from './share.ts';
import { svcInbox } from './inbox.ts';
import { svcExpose } from './expose.ts';

const implemented = [
  svcScanFolder,
  svcScanFeedback,
  svcPlan,
  svcRedact,
  svcProtect,
  svcOpen,
  svcSealRevoke,
  svcWrap,
  svcEncrypt,
  svcDecrypt,
  svcRun,
  svcConnect,
  svcGetStarted,
  svcNode,
  svcTerms,
  svcGrant,
  svcRevoke,
  svcPolicy,
  svcRules,
  svcRegisterTable,
  svcProofs,
  svcVerify,
  svcDecide,
  svcRead,
  svcRetrieve,
  svcUse,
  svcCodeAdvise,
  svcCodePatch,
  svcConnectSource,
  svcApiList,
  svcApiRead,
  svcApiWrite,
  svcSend,
  svcDeliver,
  svcBurn,
  svcLinkStatus,
  svcExpose,
  svcInbox,
];
const catalogOrder = Object.values(CATALOG).flat();

export const TOOLS: ToolDefinition[] = [...implemented].sort(
  (a, b) => catalogOrder.indexOf(a.name) - catalogOrder.indexOf(b.name),
);
