// The TeX of every formula on the page: (constant name, display mode, TeX source).
// build.rs renders each one with KaTeX at build time (HTML + MathML, `trust` off), so the
// page ships typeset markup and never typesets text that came from a URL.
pub const FORMULAS: &[(&str, bool, &str)] = &[
    (
        "CHAIN_RULE",
        true,
        r"\frac{\partial L}{\partial W_Q} = \frac{\partial L}{\partial p}\,\underbrace{\frac{\partial p}{\partial s}}_{J}\,\frac{\partial s}{\partial q}\,\frac{\partial q}{\partial W_Q}",
    ),
    (
        "SCORES",
        true,
        r"z_j = q\cdot k_j,\qquad s_j = \alpha\,\frac{z_j}{\sqrt{d_k}},\qquad p_i = \frac{e^{s_i}}{\sum_{j} e^{s_j}}",
    ),
    (
        "JACOBIAN",
        true,
        r"J_{ij} = \frac{\partial p_i}{\partial s_j} = p_i\,(\delta_{ij} - p_j),\qquad J = \operatorname{diag}(p) - p\,p^{\top}",
    ),
    (
        "JACOBIAN_FROBENIUS",
        true,
        r"\lVert J\rVert_F^2 = \sum_i p_i^2 \;-\; 2\sum_i p_i^3 \;+\; \Big(\sum_i p_i^2\Big)^2",
    ),
    (
        "DOT_VARIANCE",
        true,
        r"\operatorname{Var}(q\cdot k) = \sum_{m=1}^{d_k}\operatorname{Var}(q_m k_m) = d_k \quad\Longrightarrow\quad \operatorname{Var}\!\Big(\frac{q\cdot k}{\sqrt{d_k}}\Big) = 1",
    ),
    (
        "SATURATION",
        true,
        r"p_i \to 1 \;\Longrightarrow\; p_i(1-p_i) \to 0,\;\; p_i p_j \to 0 \;\Longrightarrow\; J \to 0",
    ),
    (
        "SCORE_MATRIX",
        true,
        r"S = \frac{QK^{\top}}{\sqrt{d_k}} \in \mathbb{R}^{n\times n},\qquad \text{time } O(n^2 d),\quad \text{memory } O(n^2)",
    ),
    (
        "KV_CACHE",
        true,
        r"\text{KV bytes} = b \cdot 2 \cdot L \cdot h_{kv} \cdot d_{\text{head}} \cdot n \cdot e,\qquad \text{scores} = b \cdot h \cdot n^2 \cdot e \text{ per layer}",
    ),
    (
        "FLOPS_CROSSOVER",
        true,
        r"\underbrace{4 n^2 h\, d_{\text{head}}}_{\text{scores and }AV} = n\,(P + M) \;\Longrightarrow\; n^{*} = \frac{P + M}{4\, h\, d_{\text{head}}}",
    ),

    (
        "RANK_BOUND",
        true,
        r"S = \frac{QK^{\top}}{\sqrt{d_k}},\quad Q, K \in \mathbb{R}^{n\times d_k} \;\Longrightarrow\; \operatorname{rank}(S) \le \min(n, d_k)",
    ),
    (
        "NUMERICAL_RANK",
        true,
        r"\operatorname{rank}_\varepsilon(M) = \#\{\, i : \sigma_i > \sigma_{\max}\cdot \max(m, n)\cdot \varepsilon \,\},\qquad \operatorname{erank}(M) = \exp\Big(-\sum_i \tfrac{\sigma_i}{\sum_j \sigma_j}\ln \tfrac{\sigma_i}{\sum_j \sigma_j}\Big)",
    ),
    (
        "ECKART_YOUNG",
        true,
        r"\min_{\operatorname{rank}(B) \le k} \frac{\lVert T - B\rVert_F}{\lVert T\rVert_F} = \frac{\sqrt{\sum_{i>k} \sigma_i^2}}{\sqrt{\sum_i \sigma_i^2}},\qquad B^{*} = U_k \Sigma_k V_k^{\top}",
    ),
    (
        "MULTI_HEAD",
        true,
        r"\operatorname{MultiHead}(X) = \big[\,A_1 X W_V^{(1)} \;\big|\; \cdots \;\big|\; A_h X W_V^{(h)}\,\big]\, W_O,\qquad A_i = \operatorname{softmax}\Big(\frac{X W_Q^{(i)} (X W_K^{(i)})^{\top}}{\sqrt{d_{\text{head}}}}\Big)",
    ),
    (
        "LORA",
        true,
        r"W' = W + \Delta W,\quad \Delta W = BA,\quad B \in \mathbb{R}^{d_{\text{out}}\times r},\; A \in \mathbb{R}^{r\times d_{\text{in}}}:\quad r\,(d_{\text{in}} + d_{\text{out}}) \text{ parameters instead of } d_{\text{out}}\, d_{\text{in}}",
    ),
    (
        "JACOBIAN_PRODUCT",
        true,
        r"\frac{\partial L}{\partial x_0} = \frac{\partial L}{\partial x_L}\,\prod_{l=L-1}^{0} \frac{\partial x_{l+1}}{\partial x_l},\qquad \Big\lVert \frac{\partial x_{l+1}}{\partial x_l} \Big\rVert \le \rho < 1 \;\Longrightarrow\; \Big\lVert\frac{\partial L}{\partial x_0}\Big\rVert \le \rho^{L}\,\Big\lVert\frac{\partial L}{\partial x_L}\Big\rVert",
    ),
    (
        "RESIDUAL_JACOBIAN",
        true,
        r"x_{l+1} = x_l + F(x_l) \;\Longrightarrow\; \frac{\partial x_{l+1}}{\partial x_l} = I + F'(x_l)",
    ),
    (
        "LAYER_NORM",
        true,
        r"\operatorname{LN}(x) = \gamma \odot \frac{x - \mu}{\sigma} + \beta,\qquad \mu = \tfrac{1}{d}\sum_i x_i,\quad \sigma = \sqrt{\tfrac{1}{d}\sum_i (x_i - \mu)^2 + \epsilon}",
    ),
];
