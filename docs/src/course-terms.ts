/**
 * The course's terms, as the glossary check recognises them in a chapter's headings and table
 * header cells. A term is recognised in a text in two ways:
 *
 * - **a listed term**: one of `COURSE_TERMS`' forms, in English whole words (any case, a plural
 *   `s` or `es` allowed), in Chinese as written. The glossary in the text's language must then
 *   define it: an entry (a paragraph starting `**…**`) whose bold title holds the term's first
 *   form, its word in the glossary.
 * - **a code term**: any inline code span (`` `send` ``), which the glossary in the text's
 *   language must hold somewhere as the same code span.
 *
 * And one Chinese word per idea: a Chinese chapter text uses none of a term's `zhAvoid` words
 * (the other words once used for the same idea), outside code.
 *
 * A chapter that names a new idea in a heading or a table header adds its term here (with its one
 * Chinese word) and its entry to docs/glossary.md and docs/glossary.zh.md.
 */

/** One idea of the course: the words for it in each language, the first of each its glossary word. */
export interface CourseTerm {
  /** English forms, the first the word the glossary's entry title holds. */
  en: readonly string[];
  /** Chinese forms, the first the word the Chinese glossary's entry title holds. */
  zh: readonly string[];
  /** Other Chinese words for the same idea that the texts no longer use. */
  zhAvoid?: readonly string[];
}

/** The terms, in the order the glossary defines them (the ones it lacks at the end). */
export const COURSE_TERMS: readonly CourseTerm[] = [
  { en: ["agent harness"], zh: ["智能体运行框架"] },
  { en: ["agent loop"], zh: ["智能体循环"] },
  { en: ["turn budget"], zh: ["轮数预算"] },
  { en: ["AgentLoopResult", "loop result"], zh: ["AgentLoopResult", "循环结果"] },
  { en: ["loop event"], zh: ["循环事件"] },
  { en: ["listener"], zh: ["监听者"] },
  { en: ["seam"], zh: ["接缝"] },
  { en: ["content block"], zh: ["内容块"] },
  { en: ["tool call"], zh: ["工具调用"] },
  { en: ["tool result"], zh: ["工具结果"] },
  { en: ["history validity"], zh: ["历史有效性"] },
  { en: ["stop reason"], zh: ["停止原因"] },
  { en: ["refusal"], zh: ["拒绝（refusal）"] }, // 拒绝 alone is also a rule's deny
  { en: ["bash tool"], zh: ["bash 工具"] },
  { en: ["deny list"], zh: ["拒绝列表"] },
  { en: ["tool object"], zh: ["工具对象"] },
  { en: ["dispatch map"], zh: ["分发表"] },
  { en: ["concurrency-safe"], zh: ["并发安全"] },
  { en: ["error code"], zh: ["错误码"] },
  { en: ["path confinement"], zh: ["路径限制"] },
  { en: ["streaming"], zh: ["流式输出"] },
  { en: ["interruption"], zh: ["中断"] },
  { en: ["stream error"], zh: ["流错误"] },
  { en: ["trace"], zh: ["追踪"] },
  { en: ["harness data directory"], zh: ["harness 数据目录"] },
  { en: ["time to first token"], zh: ["首个 token 延迟"] },
  { en: ["redaction"], zh: ["脱敏"] },
  { en: ["OTLP export"], zh: ["OTLP 导出"] },
  { en: ["iteration"], zh: ["迭代"] },
  { en: ["trace recorder"], zh: ["追踪记录器"] },
  { en: ["permission rule"], zh: ["权限规则"] },
  { en: ["permission mode"], zh: ["权限模式"] },
  { en: ["permission decision"], zh: ["权限决定"] },
  { en: ["session"], zh: ["会话"] },
  { en: ["transcript"], zh: ["对话记录"] },
  { en: ["fork"], zh: ["分叉"] },
  { en: ["repair"], zh: ["修复"] },
  { en: ["context window"], zh: ["上下文窗口"] },
  { en: ["context size"], zh: ["上下文大小"] },
  { en: ["clearing"], zh: ["清理"] },
  { en: ["compaction"], zh: ["压缩"] },
  { en: ["server-side context management"], zh: ["服务端上下文管理"] },
  { en: ["prompt cache"], zh: ["提示词缓存"] },
  { en: ["cache breakpoint"], zh: ["缓存断点"] },
  { en: ["todo list"], zh: ["待办清单"] },
  { en: ["reminder"], zh: ["提醒"] },
  { en: ["restatement"], zh: ["重述"] },
  { en: ["scripted model"], zh: ["脚本模型"] },
  { en: ["endpoint guard"], zh: ["端点守卫"] },
  { en: ["model timeout"], zh: ["模型时限"] },
  // the ideas the glossary does not define yet (issue 24: it stops before s06)
  { en: ["exit code", "exit status"], zh: ["退出码"], zhAvoid: ["退出状态"] },
  { en: ["settings file"], zh: ["设置文件"] },
  { en: ["default deny"], zh: ["默认拒绝"] },
  { en: ["hook"], zh: ["钩子"] },
  { en: ["trust"], zh: ["信任"] },
  { en: ["provider"], zh: ["服务商"], zhAvoid: ["提供商"] },
  { en: ["wire format"], zh: ["接口格式"], zhAvoid: ["线路格式", "传输格式"] },
  { en: ["adapter"], zh: ["适配器"] },
  { en: ["cache read"], zh: ["缓存读取"] },
  { en: ["cache write"], zh: ["缓存写入"] },
  { en: ["skill"], zh: ["技能"] },
  { en: ["MCP server"], zh: ["MCP 服务器"] },
  { en: ["tool search"], zh: ["工具搜索"] },
];
