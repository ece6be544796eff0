"""The Chinese edition's translation catalogs: complete, intact and in step with the English source.

``tools.zh_edition`` holds the checks; these tests run them on ``locales/zh_CN`` and re-extract the
English messages to compare message ids, so an edited English paragraph fails here until its
translation is updated (``python -m tools.zh_edition extract``, then translate the fuzzy/new messages).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from tools import zh_edition
from tools.zh_edition import message_problems

ROOT = Path(__file__).resolve().parents[1]
LC_MESSAGES = ROOT / "locales" / "zh_CN" / "LC_MESSAGES"


def _messages(path: Path):
    with open(path, "rb") as handle:
        return [m for m in read_po(handle) if m.id]


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> Path:
    """The English messages as the gettext builder extracts them today (one .pot per page)."""
    out = tmp_path_factory.mktemp("gettext")
    subprocess.run(["jupyter-book", "build", str(ROOT), "--builder", "custom", "--custom-builder", "gettext",
                    "--path-output", str(out), "--all", "-q"], check=True, cwd=ROOT, capture_output=True)
    return out / "_build" / "gettext"


def test_every_page_has_a_catalog(extracted):
    pages = sorted(p.relative_to(extracted).with_suffix("") for p in extracted.rglob("*.pot"))
    catalogs = sorted(p.relative_to(LC_MESSAGES).with_suffix("") for p in LC_MESSAGES.rglob("*.po"))
    assert pages and catalogs == pages


def test_catalogs_match_the_english_source(extracted):
    """Same message ids as a fresh extraction: no English message missing, none left over."""
    for pot in sorted(extracted.rglob("*.pot")):
        po = LC_MESSAGES / pot.relative_to(extracted).with_suffix(".po")
        english = {m.id for m in _messages(pot)}
        translated = {m.id for m in _messages(po)}
        assert english == translated, (f"{po.name} is out of date: run `python -m tools.zh_edition extract`; "
                                       f"new {sorted(english - translated)[:3]}, gone {sorted(translated - english)[:3]}")


@pytest.mark.parametrize("po", sorted(LC_MESSAGES.rglob("*.po")), ids=lambda p: p.stem)
def test_every_message_translated_and_intact(po):
    """No untranslated or fuzzy message; math, code, roles and placeholders carried over unchanged."""
    problems = zh_edition.catalog_problems(po)
    assert not problems, "\n".join(problems[:10])


def test_catalogs_hold_alt_texts_and_slider_text():
    messages = {m.id for po in LC_MESSAGES.rglob("*.po") for m in _messages(po)}
    from tools.i18n import PDF_SLIDER_NOTE, SLIDER_NOTE

    assert SLIDER_NOTE in messages and PDF_SLIDER_NOTE in messages
    assert any(m.startswith("Laplace densities and CDFs") for m in messages)  # a figure's alt text


@pytest.mark.parametrize("msgid, msgstr, problem", [
    ("Draw $x$ with `f`.", "", "untranslated"),
    ("Draw $x$ with `f`.", "用 `f` 抽取 $y$。", "math differ"),
    ("Draw $x$ with `f`.", "用 `g` 抽取 $x$。", "code differ"),
    ("See {ref}`the proof <thm-x>`.", "见{ref}`证明 <thm-y>`。", "roles differ"),
    ("See {cite:p}`dwork2006`.", "见 {cite:p}`dwork2014`。", "roles differ"),
    ("A share of {glue:text}`ch09_share:.2f`.", "比例为 0.90。", "roles differ"),  # glued number retyped
    ("A share of {glue:text}`ch09_share:.2f`.", "比例为 {glue:text}`ch09_share:.1%`。", "roles differ"),  # format
    ("ε = {epsilon} here", "此处 ε = {eps}", "placeholders differ"),
    ("the noise is large", "the noise is large", "no Chinese"),
    ("Get {download}`the zip <a.zip>`.", "下载{download}`压缩包 <b.zip>`。", "roles differ"),  # a download's target
])
def test_the_check_catches_damage(msgid, msgstr, problem):
    assert any(p.startswith(problem) for p in message_problems(msgid, msgstr, fuzzy=False))


def test_the_check_passes_a_good_translation_and_flags_fuzzy():
    msgid = ("See {ref}`the proof <thm-x>` of $x$ in `f` {cite:p}`dwork2006`, at ε = {epsilon}, "
             "a share of {glue:text}`ch09_share:.2f`.")
    msgstr = ("参见 $x$ 的{ref}`证明 <thm-x>`，见 `f` {cite:p}`dwork2006`，此时 ε = {epsilon}，"
              "比例为 {glue:text}`ch09_share:.2f`。")
    assert message_problems(msgid, msgstr, fuzzy=False) == []
    assert message_problems(msgid, msgstr, fuzzy=True) == ["fuzzy"]


def test_a_download_role_keeps_its_target_and_translates_its_text():
    """``{download}`text <path>``` is like ``{ref}``: the text is prose (学生版（zip）), the path must survive."""
    msgid = "Download {download}`the student edition (zip) <../_build/downloads/x.zip>`, then unzip it."
    assert message_problems(msgid, "下载{download}`学生版（zip） <../_build/downloads/x.zip>`，然后解压。", fuzzy=False) == []


def test_a_role_shown_inside_a_code_span_is_code_not_a_role():
    """The preface names MyST syntax (`{glue:text}`, `{dropdown}`) in code spans: the words after such a span are
    prose to translate, not a role's content to keep; the code spans themselves must still survive."""
    msgid = "Markup such as `{glue:text}` and `{dropdown}` shows as typed in JupyterLab."
    assert message_problems(msgid, "在 JupyterLab 中，`{glue:text}` 和 `{dropdown}` 这样的标记会原样显示。",
                            fuzzy=False) == []
    assert any(p.startswith("code differ") for p in
               message_problems(msgid, "在 JupyterLab 中，`{glue:text}` 这样的标记会原样显示。", fuzzy=False))


def test_glossary_exists():
    text = (ROOT / "locales" / "zh_CN" / "GLOSSARY.md").read_text(encoding="utf-8")
    for term in ("差分隐私", "隐私预算", "敏感度", "拉普拉斯机制", "指数机制", "随机响应", "本地差分隐私"):
        assert term in text


def test_the_chinese_config_derives_from_the_english_one():
    config = zh_edition.zh_config()
    assert config["sphinx"]["config"]["language"] == "zh_CN"
    assert config["title"] == zh_edition.TITLE
    assert "xeCJK" not in config["sphinx"]["config"]["latex_elements"]["fontpkg"]  # Sphinx adds it for zh
    assert "Noto Serif CJK SC" in config["sphinx"]["config"]["latex_elements"]["fontpkg"]
    assert sys.modules["tools.zh_edition"] is zh_edition


def test_compiled_catalogs_qualify_every_glue_role_with_its_notebook(tmp_path):
    """A translated paragraph is parsed without its notebook, so MyST-NB can resolve only document-qualified
    glue roles there: the zh edition's compiled catalogs write every same-page role as ``page.ipynb::key``."""
    from babel.messages.mofile import read_mo

    assert zh_edition._qualified_glue("{glue:text}`k:.2f`, {glue:text}`k`, {glue:text}`b.ipynb::j:.1%`",
                                      "a.ipynb") == \
        "{glue:text}`a.ipynb::k:.2f`, {glue:text}`a.ipynb::k:s`, {glue:text}`b.ipynb::j:.1%`"
    assert zh_edition._qualified_glue("Markup such as `{glue:text}` stays as typed.", "a.ipynb") == \
        "Markup such as `{glue:text}` stays as typed."  # a role shown in a code span is code
    glued = 0
    for mo in zh_edition.compile_catalogs():
        with open(mo, "rb") as handle:
            for message in read_mo(handle):
                for content in re.findall(r"(?<!`)\{glue(?::\w+)?\}`([^`]*)`", str(message.string or "")):
                    assert "::" in content and content.count(":") >= 3, (mo.name, content)
                    glued += 1
    assert glued > 100


# --- The terminology check (issue 39): seeded damage cases --------------------------------------------------------
# Each case is a copy of a real message (page, English, its correct translation) and a damaged translation with one
# glossary variant or calque put back; the check must pass the first and name the expected problem for the second.
# Every rule of the glossary's machine-readable block must be caught by at least one case (see the test below).

DAMAGE = [
    # noisy: 加噪 for the algorithm, 带噪 for a released value
    ("11_private_learning", "Noisy gradient descent", "加噪梯度下降", "噪声梯度下降", "term: '噪声梯度下降'"),
    ("11_private_learning", "Going deeper: how far off is the noisy count?", "深入一步：带噪计数会偏离多远？",
     "深入一步：加噪计数会偏离多远？", "term: '加噪计数'"),
    ("08_private_statistics", "A private mean is a clipped, centred noisy sum over a noisy count; a variance adds the "
     "noisy sum of squares.", "差分隐私均值就是裁剪、中心化后的带噪总和除以带噪计数（人数）；方差再加上带噪的平方和。",
     "差分隐私均值就是裁剪、中心化后的加噪的总和除以带噪计数（人数）；方差再加上加噪的平方和。", "term: '加噪的总和'"),
    ("08_private_statistics", "A private mean is a clipped, centred noisy sum over a noisy count; a variance adds the "
     "noisy sum of squares.", "差分隐私均值就是裁剪、中心化后的带噪总和除以带噪计数（人数）；方差再加上带噪的平方和。",
     "差分隐私均值就是裁剪、中心化后的带噪总和除以含噪计数（人数）；方差再加上带噪的平方和。", "banned: '含噪'"),
    ("06_sparse_vector", "certified lower bound", "认证下界", "经认证的下界", "term: '经认证的'"),
    ("11_private_learning", "Two shortcuts that leak", "两条会泄露的捷径", "两条会泄漏的捷径", "banned: '泄漏'"),
    ("11_private_learning", "Move ε and q", "调节 ε 和 q", "移动 ε 和 q", "term: '移动 ε'"),
    ("01_why_privacy", "Pre-rendered figures: move a slider (mouse or arrow keys) to see the figure for that setting. "
     "For any other value, run the chapter in JupyterLab or open it with the launch buttons (rocket icon) at the top "
     "of the page.", "预先渲染的图：拖动滑块（鼠标或方向键）即可查看该设置下的图。若要使用其他取值，请在 JupyterLab "
     "中运行本章，或用页面顶部的启动按钮（火箭图标）打开它。", "预先渲染的图：移动滑块（鼠标或方向键）即可查看该设置下的图。"
     "若要使用其他取值，请在 JupyterLab 中运行本章，或用页面顶部的启动按钮（火箭图标）打开它。", "term: '(?i)\\\\bmov(e|ing)"),
    ("14_exact_noise", "Real-valued queries: the snapping mechanism", "实值查询：吸附机制", "实值查询：snapping 机制",
     "term: 'snapping 机制'"),
    ("01_why_privacy", "The usual first step is to drop the *direct identifiers*, here the name and the social security "
     "number, and publish the rest:", "通常的第一步是删除*直接标识符*（这里是姓名和社会安全号码），然后发布其余部分：",
     "通常的第一步是删除*直接标识符*（这里是姓名和社会保障号），然后发布其余部分：", "term: '社会保障号'"),
    ("03_composition", "histogram (each person in one bin)", "直方图（每人恰在一个分箱中）", "直方图（每人恰在一个桶中）",
     "term: '桶'"),
    ("13_query_release", "The setup cell imports `dp_lib`, creates the chapter's seeded generator and loads the Adult "
     "data. Figure functions seed their own generators, so every number and picture on this page is reproducible.",
     "设置单元格导入 `dp_lib`，创建本章带种子的生成器并加载 Adult 数据。绘图函数为自己的生成器设定种子，所以本页的每个数字和"
     "每张图都可以复现。", "初始化单元格导入 `dp_lib`，创建本章带种子的生成器并加载 Adult 数据。绘图函数为自己的生成器设定种子，"
     "所以本页的每个数字和每张图都可以复现。", "term: '初始化单元格'"),
    ("09_local_dp", "k-ary randomized response", "k 元随机响应", "k 元随机化回答", "term: '随机化回答'"),
    ("07_local_sensitivity", "(Sample-and-aggregate is ε-DP)", "（采样-聚合满足 ε-差分隐私）",
     "（样本与聚合满足 ε-差分隐私）", "banned: '样本与聚合'"),
    ("15_user_level", "Event level is not enough", "事件级隐私是不够的", "记录级隐私是不够的", "term: '记录级'"),
    ("11_private_learning", "Charging an accountant", "记入隐私核算器", "记入隐私会计", "banned: '隐私会计'"),
    ("09_local_dp", "say who must be trusted in the central and in the local model, and where the noise is added in "
     "each;", "说出在中心模型（central model）和本地模型（local model）中分别必须信任谁，以及各自在哪里加入噪声；",
     "说出在中心模型（central model）和局部模型（local model）中分别必须信任谁，以及各自在哪里加入噪声；",
     "term: '局部模型'"),
    ("07_local_sensitivity", "Local sensitivity", "局部敏感度", "本地敏感度", "term: '本地敏感度'"),
    ("04_exponential_mechanism", "scale Δ/ε (D&R Claim 3.9)", "尺度 Δ/ε（D&R 断言 3.9）", "尺度 Δ/ε（D&R Claim 3.9）",
     "term: '\\\\bClaim"),
    ("00_preface", "The data and its fake identifiers", "数据及其虚构的标识符", "数据及其伪造的标识符", "term: '伪造'"),
    ("07_local_sensitivity", "This figure looks at the private data", "这张图查看了私密数据", "这张图查看了私有数据",
     "banned: '私有数据'"),
    ("09_local_dp", "Local against central", "本地模型与中心模型对比", "本地对比中心", "term: '^Local against central"),
    ("11_private_learning", "Learning privately: noisy gradient descent", "满足差分隐私的学习：加噪梯度下降",
     "隐私地学习：加噪梯度下降", "private: 隐私地"),
    ("11_private_learning", "Learning privately: noisy gradient descent", "满足差分隐私的学习：加噪梯度下降",
     "隐私地学习：加噪梯度下降", "term: '(?i)\\\\blearning privately"),
    # "private X": bare 隐私 + noun, 非隐私, 是隐私的, 隐私性
    ("04_exponential_mechanism", "A continuous range: private quantiles", "连续区间：差分隐私分位数", "连续区间：隐私分位数",
     "private: bare 隐私 + noun"),
    ("11_private_learning", "**non-private** gradient descent (blue);", "**无隐私保护的**梯度下降（蓝色）；",
     "**非隐私**梯度下降（蓝色）；", "private: 非隐私"),
    ("11_private_learning", "**non-private** gradient descent (blue);", "**无隐私保护的**梯度下降（蓝色）；",
     "**非隐私**梯度下降（蓝色）；", "term: '(?i)\\\\bnon-private"),
    ("07_local_sensitivity", "Percent errors of four private means of the ages at ε = 1",
     "ε = 1 时四种满足差分隐私的年龄均值的百分比误差", "ε = 1 时四种隐私年龄均值的百分比误差", "private: bare 隐私 + noun"),
    ("06_sparse_vector", "Published variants that are not private", "已发表但不满足差分隐私的变体",
     "已发表但不满足隐私性的变体", "private: 隐私性"),
    ("06_sparse_vector", "Published variants that are not private", "已发表但不满足差分隐私的变体", "已发表但不是隐私的变体",
     "banned: '是隐私的'"),
    # typography and leftovers
    ("15_user_level", "Going deeper: why ±10 %", "深入一步：为什么是 ±10%", "深入一步：为什么是 ±10 %", "banned: '0 %'"),
    ("02_laplace", "pure ε-DP", "纯 ε-差分隐私", "纯 ε-DP", "banned: 'ε-DP'"),
    ("09_local_dp", "Local differential privacy", "本地差分隐私", "局部差分隐私", "banned: '局部差分隐私'"),
    ("03_composition", "Total ε of k releases at ε = 0.1 each: advanced composition drops below plain addition from "
     "about 29 releases on and is about four times smaller at 1,000.", "k 次各为 ε = 0.1 的发布的总 ε：从约 29 次发布起，"
     "高级组合低于直接相加，到 1,000 次时约为直接相加的四分之一。", "k 次各为 ε = 0.1 的发布的总 ε：从约 29 次发布起，"
     "高级组合低于直接相加，到 1,000 次时约小四倍。", "banned: '小四倍'"),
    # issue 39, native reviews: gaps the first version of the check left open
    # -DP after math: visible_text() blanks the math, so the banned rule must see the text with the math kept
    ("10_accounting", "For $k$ steps that are each $\\varepsilon$-DP, the worst case is randomized response.",
     "对 $k$ 个各自满足 $\\varepsilon$-差分隐私的步骤，最坏情形是随机响应。",
     "对 $k$ 个各自满足 $\\varepsilon$-DP 的步骤，最坏情形是随机响应。", "banned: '$-DP'"),
    ("10_accounting", "$M$ is $(\\varepsilon, \\delta)$-DP for the ordered pair $(D, D')$ if and only if",
     "对有序对 $(D, D')$，$M$ 满足 $(\\varepsilon, \\delta)$-差分隐私当且仅当",
     "对有序对 $(D, D')$，$M$ 满足 $(\\varepsilon, \\delta)$-DP 当且仅当", "banned: '$-DP'"),
    # 带噪声的X for any released value, not only 带噪声的计数
    ("08_private_statistics", "Plugging the noisy table into the classical χ² test ignores the noise.",
     "把带噪表直接代入经典 χ² 检验会忽略噪声。", "把带噪声的表直接代入经典 χ² 检验会忽略噪声。", "banned: '带噪声'"),
    ("11_private_learning", "explain why the average gradient is a noisy sum divided by a noisy (or public) count;",
     "解释为什么平均梯度是带噪总和除以带噪（或公开的）计数；", "解释为什么平均梯度是带噪总和除以带噪声（或公开）的计数；",
     "banned: '带噪声'"),
    # "N times smaller/larger" with a glued number or math in between, and 大了…倍
    ("11_private_learning", "$\\delta = 10^{-5}$ is only {glue:text}`ch08_delta_margin:.1f` times below $1/n$.",
     "$\\delta = 10^{-5}$ 只是 $1/n$ 的 1/{glue:text}`ch08_delta_margin:.1f`。",
     "$\\delta = 10^{-5}$ 只比 $1/n$ 小 {glue:text}`ch08_delta_margin:.1f` 倍。", "banned: '小 # 倍'"),
    ("04_exponential_mechanism", "Permute-and-flip reaches 99% at a smaller ε, by a factor of "
     "{glue:text}`ch04_ex4_factor:.2f`.", "置换翻转在更小的 ε 下就达到 99%，指数机制所需的 ε 是它的 "
     "{glue:text}`ch04_ex4_factor:.2f` 倍。", "置换翻转在更小的 ε 下就达到 99%，小了 {glue:text}`ch04_ex4_factor:.2f` 倍。",
     "banned: '小了 # 倍'"),
    ("07_local_sensitivity", "the true ε is $K/\\lceil n/m\\rceil$ times the claimed one.",
     "真实的 ε 是声称值的 $K/\\lceil n/m\\rceil$ 倍。", "真实的 ε 比声称的大 $K/\\lceil n/m\\rceil$ 倍。", "banned: '大 $K/"),
    ("15_user_level", "At $\\varepsilon = 0.1$ the noise is ten times larger.", "在 $\\varepsilon = 0.1$ 时，噪声是原来的十倍。",
     "在 $\\varepsilon = 0.1$ 时，噪声大了十倍。", "banned: '大了十倍'"),
    ("02_laplace", "so the error grows tenfold each time ε shrinks tenfold.",
     "因此 ε 每缩小为原来的十分之一，误差就增大到原来的十倍。", "因此 ε 每缩小为原来的十分之一，误差就增大十倍。",
     "banned: '增大十倍'"),
    # "is DP": 满足…差分隐私, not 是…差分隐私的 / 不是…差分隐私的, with ε, a number or math in between
    ("14_exact_noise", "A mechanism with these probabilities is not ε-DP for any ε, and not even $(\\varepsilon, "
     "\\delta)$-DP for any δ below that probability.", "这样的机制对任何 ε 都不满足 ε-差分隐私；对任何小于该概率的 δ，"
     "甚至也不满足 $(\\varepsilon, \\delta)$-差分隐私。", "这样的机制对任何 ε 都不是 ε-差分隐私的；对任何小于该概率的 δ，"
     "甚至也不满足 $(\\varepsilon, \\delta)$-差分隐私。", "banned: '是 ε-差分隐私的'"),
    ("14_exact_noise", "A mechanism with these probabilities is not ε-DP for any ε, and not even $(\\varepsilon, "
     "\\delta)$-DP for any δ below that probability.", "这样的机制对任何 ε 都不满足 ε-差分隐私；对任何小于该概率的 δ，"
     "甚至也不满足 $(\\varepsilon, \\delta)$-差分隐私。", "这样的机制对任何 ε 都不满足 ε-差分隐私；对任何小于该概率的 δ，"
     "甚至也不是 $(\\varepsilon, \\delta)$-差分隐私的。", "banned: '是 $(\\\\varepsilon"),
    ("05_auditing", "A count released with noise Lap(0.8) is really 1.25-DP, only 0.25 above the claim.",
     "以 Lap(0.8) 的噪声发布的计数实际上只满足 1.25-差分隐私，只比声明高 0.25。",
     "以 Lap(0.8) 的噪声发布的计数实际上是 1.25-差分隐私，只比声明高 0.25。", "banned: '是 1.25-差分隐私'"),
    ("09_local_dp", "Unary encoding with $0 < q < p < 1$ is $\\varepsilon$-LDP.", "满足 $0 < q < p < 1$ 的一元编码满足 "
     "$\\varepsilon$-LDP。", "满足 $0 < q < p < 1$ 的一元编码是 $\\varepsilon$-LDP 的。", "banned: '是 $\\\\varepsilon$-LDP 的'"),
    # a glued number then " %": the space is as wrong as after a typed one
    ("14_exact_noise", "Snapping costs {glue:text}`ch09_snap_extra_min:.1f` % more than Laplace.",
     "吸附机制的误差比拉普拉斯机制大 {glue:text}`ch09_snap_extra_min:.1f`%。",
     "吸附机制的误差比拉普拉斯机制大 {glue:text}`ch09_snap_extra_min:.1f` %。", "banned: '# %'"),
    # emphasis in the English or the Chinese does not hide a term (**noisy** gradient descent, *局部*敏感度)
    ("11_private_learning", "**noisy** gradient descent (vermillion).", "**加噪**梯度下降（朱红色）。",
     "**噪声**梯度下降（朱红色）。", "term: '噪声梯度下降'"),
    ("11_private_learning", "that is a *local* sensitivity", "那是一种*局部*敏感度", "那是一种*本地*敏感度", "term: '本地敏感度'"),
    # bold: a space between Chinese text and Chinese bold only where CommonMark's flanking rule needs one
    ("11_private_learning", "As in every chapter, the setup cell imports `dp_lib`, creates **one** seeded generator",
     "和每一章一样，设置单元格导入 `dp_lib`，创建**一个**带种子的生成器", "和每一章一样，设置单元格导入 `dp_lib`，创建 **一个**带种子的生成器",
     "bold: stray space before **一个**"),
    ("11_private_learning", "As in every chapter, the setup cell imports `dp_lib`, creates **one** seeded generator",
     "和每一章一样，设置单元格导入 `dp_lib`，创建**一个**带种子的生成器", "和每一章一样，设置单元格导入 `dp_lib`，创建**一个** 带种子的生成器",
     "bold: stray space after **一个**"),
    ("03_composition", "**When does the bound help?** Only below $\\varepsilon = \\ln 2$.",  # ends in ？: needs the space
     "**这个界何时有用？** 只在低于 $\\varepsilon = \\ln 2$ 时。", "**这个界何时有用？**只在低于 $\\varepsilon = \\ln 2$ 时。",
     "bold: **这个界何时有用？** cannot close"),
    ("10_accounting", "$M$ is **$f$-DP** if it is.",  # starts with $ after a Han character: needs the space
     "若如此，则 $M$ 满足 **$f$-DP**。", "若如此，则 $M$ 满足**$f$-DP**。", "bold: **$f$-DP** cannot open"),
    ("09_local_dp", "**Fake yeses.** About half of all answers", "**虚假的“是”。** 全部回答中约有一半",
     "**虚假的“是”。 **全部回答中约有一半", "bold: **虚假的“是”。 ** cannot close"),
]


@pytest.mark.parametrize("page, msgid, fixed, damaged, problem", DAMAGE,
                         ids=[f"{i}-{case[4][:24]}" for i, case in enumerate(DAMAGE)])
def test_the_terminology_check_catches_each_seeded_damage(page, msgid, fixed, damaged, problem):
    assert message_problems(msgid, fixed, fuzzy=False, page=page) == []
    found = message_problems(msgid, damaged, fuzzy=False, page=page)
    assert any(p.startswith(problem) for p in found), found


def test_every_glossary_rule_has_a_damage_case():
    """A rule no damage case trips could be dead (a regex typo matches nothing): each term, each banned pattern."""
    rules = zh_edition.terminology()
    caught = {p for page, msgid, _, damaged, _ in DAMAGE
              for p in zh_edition.terminology_problems(msgid, damaged, page)}
    for term in rules["terms"]:
        assert any(p.startswith("term: ") and repr(term["en"]) in p for p in caught) or \
            any(p.startswith("term: ") and f"for {term['en']!r}" in p for p in caught), term["en"]
    for ban in rules["banned"]:
        assert any(p.startswith("banned: ") and p.endswith(ban["use"]) for p in caught), ban["zh"]


@pytest.mark.parametrize("msgstr, allowed", [
    ("隐私损失、隐私预算、隐私保护、隐私核算与隐私核算器", True),  # the established "privacy X" compounds
    ("差分隐私分位数、满足差分隐私的学习、本地差分隐私、用户级隐私、群组隐私", True),  # 隐私 inside a compound
    ("一幅图就展示了隐私与准确性之间的权衡；隐私要付出多少？", True),  # the noun "privacy"
    ("不加隐私时测试准确率更高。", True),
    ("隐私分位数", False), ("隐私地学习", False), ("它是隐私的", False), ("一元编码的隐私性", False),
    ("非隐私模型", False), ("隐私模型", False), ("四种隐私年龄均值", False), ("以隐私方式发布", False),
])
def test_the_bare_private_rule(msgstr, allowed):
    assert (zh_edition.private_problems(msgstr) == []) is allowed


@pytest.mark.parametrize("msgstr", [
    "创建**一个**带种子的生成器", "创建 **一个**带种子的生成器", "创建**一个** 带种子的生成器",
    "**这个界何时有用？** 只在低于", "**这个界何时有用？**只在低于", "则 $M$ 满足 **$f$-DP**。", "则 $M$ 满足**$f$-DP**。",
    "满足 **“是”** 的", "满足**“是”**的", "满足 **“是”**的", "用 **OpenDP** 的映射", "** 一个**带种子", "**一个 **带种子",
    "是**充分的，但并不等价**。", "**前置知识：** {doc}`x`", "**前置知识：**{doc}`x`", "（**公开的**）",
])
def test_the_bold_rule_agrees_with_the_parser(msgstr):
    """"Cannot open/close" is exactly where MyST's parser (markdown-it) leaves the asterisks as text; a flagged stray
    space, once removed, still leaves bold text (both sides of the span)."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    bold = "<strong>" in md.render(msgstr)
    broken = [p for p in zh_edition.bold_problems(msgstr) if "cannot" in p]
    assert bold == (not broken), (md.render(msgstr), broken)
    for problem in zh_edition.bold_problems(msgstr):
        if "stray space before" in problem:
            span = problem.split("before ", 1)[1]
            assert "<strong>" in md.render(msgstr.replace(" " + span, span, 1))
        if "stray space after" in problem:
            span = problem.split("after ", 1)[1]
            assert "<strong>" in md.render(msgstr.replace(span + " ", span, 1))


def test_f_dp_and_gdp_keep_their_names():
    """Only a DP parameter (ε, δ, a number, math) before -DP is flagged: $f$-DP and $G_\\mu$-DP are names."""
    msgid = "$M$ is **$f$-DP** if it is; if it is $G_\\mu$-DP, it is $\\mu$-GDP."
    assert message_problems(msgid, "若如此，则 $M$ 满足 **$f$-DP**；若它满足 $G_\\mu$-DP，则它满足 $\\mu$-GDP。",
                            fuzzy=False) == []


def test_first_use_notes():
    rules = zh_edition.terminology()
    ldp = [("Local differential privacy", "本地差分隐私"),
           ("A randomized algorithm, run by one person on their own value, is **ε-locally differentially private** "
            "(ε-LDP) if", "一个由某人对自己的值运行的随机算法是 **ε-本地差分隐私的**（ε-LDP；本地差分隐私也译作本地化差分隐私、"
            "局部差分隐私）")]
    assert zh_edition.first_use_problems("09_local_dp", ldp, rules) == []  # the title is skipped; the note is there
    bare = [ldp[0], (ldp[1][0], "一个由某人对自己的值运行的随机算法是 **ε-本地差分隐私的**（ε-LDP）")]
    assert zh_edition.first_use_problems("09_local_dp", bare, rules)
    renyi = [("use Rényi and zero-concentrated DP, choose the Rényi order", "使用 Rényi 差分隐私与零集中差分隐私，选择 Rényi 阶数")]
    assert zh_edition.first_use_problems("10_accounting", renyi, rules)
    assert not zh_edition.first_use_problems(
        "10_accounting", [(renyi[0][0], renyi[0][1].replace("Rényi", "Rényi（雷尼）", 1))], rules)
    emphasised = [("This chapter runs a *differencing* attack on two innocent-looking counts.",
                   "本章演示针对两个看似无害的计数的*差分攻击*（differencing attack）。")]  # emphasis hid the first use
    assert zh_edition.first_use_problems("01_why_privacy", emphasised, rules)
    emphasised = [(emphasised[0][0], emphasised[0][1].replace("attack）", "attack，不是密码学中的差分密码分析）"))]
    assert not zh_edition.first_use_problems("01_why_privacy", emphasised, rules)
    attack = [("run a differencing attack and a least-squares reconstruction attack", "实施差分攻击和最小二乘重构攻击")]
    assert zh_edition.first_use_problems("01_why_privacy", attack, rules)
    assert not zh_edition.first_use_problems("01_why_privacy", [], rules)


def test_the_catalogs_follow_the_glossary():
    """The terminology part of the check alone, on every translated, non-fuzzy message (untranslated and fuzzy ones,
    which English edits create, are the job of test_every_message_translated_and_intact)."""
    problems = [line for po in sorted(LC_MESSAGES.rglob("*.po")) for line in zh_edition.catalog_problems(po)
                if not line.endswith(("untranslated", "fuzzy")) and any(
                    k in line for k in (": term: ", ": banned: ", ": private: ", ": bold: ", ": first use"))]
    assert not problems, "\n".join(problems[:10])
