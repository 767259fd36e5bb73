// The fixtures' provider: a scripted order-support agent, no model and no network. Its
// config names the system and, per request, the answer, the calls (1, 2, ... per request,
// counted across repetitions) on which the order service fails (a provider error), and the
// calls on which it answers wrongly (an assertion fails).
class OrderAgent {
  constructor(options) {
    this.config = (options && options.config) || {};
    this.calls = {};
  }

  id() {
    return 'file://order_agent.js:' + (this.config.system || 'agent');
  }

  async callApi(prompt, context) {
    const vars = (context && context.vars) || {};
    const request = vars.request;
    this.calls[request] = (this.calls[request] || 0) + 1;
    const call = this.calls[request];
    const script = (this.config.script || {})[request] || {};
    if ((script.error_on || []).indexOf(call) >= 0) {
      return { error: 'order service unavailable (call ' + call + ')' };
    }
    const wrong = (script.wrong_on || []).indexOf(call) >= 0;
    const answer = wrong ? script.wrong : script.answer;
    const completion = answer.split(' ').length;
    return {
      output: answer,
      tokenUsage: { total: 12 + completion, prompt: 12, completion: completion },
      cost: (12 + completion) / 1000000,
    };
  }
}

module.exports = OrderAgent;
