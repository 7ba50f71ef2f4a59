"""Domain vocabularies: the words whose presence among a topic's keywords marks it in-domain.

A vocabulary is a set of lowercase words in any script, matched against the keywords that
`topics` extracts (`segment` makes them: a Han-character term is cut as one word wherever it
occurs; an English plural folds to its singular: "equations" matches "equation"). A term is one
word of any length: "r", "求" and "计算机" are fine, "linear algebra" is two.

Built-ins: ``coding``, ``math``, ``writing``, each in English and Chinese. They avoid words that
are common in every kind of request ("write", "help", "model"; 写, 帮, 问题) so that a cluster
matches on what it is about, not on how people ask. Users pass their own as a list of words or
a file with one word a line (``#`` starts a comment).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from checkbench.convbench.segment import is_term
from checkbench.errors import InputError
from checkbench.inputs import iter_input_lines

_CODING = """
python javascript typescript java kotlin swift rust golang ruby php perl scala haskell cpp
csharp dotnet lua dart elixir erlang clojure fortran cobol assembly matlab vba powershell bash
shell zsh sql mysql postgres postgresql sqlite mongodb redis elasticsearch html css scss json yaml
xml csv regex linux unix ubuntu docker dockerfile kubernetes git github gitlab api rest
graphql http https endpoint server backend frontend database query schema code coding codebase
program programming programmer script scripting function method class object variable array
list dict dictionary tuple string integer boolean float loop iterate iteration recursion
recursive algorithm compile compiler compilation interpreter runtime debug debugging debugger
bug error exception traceback stacktrace stack heap queue pointer struct enum interface module
package library framework import install pip conda npm yarn node nodejs react vue angular svelte
nextjs django flask fastapi spring express laravel rails pandas numpy scipy matplotlib seaborn
tensorflow pytorch torch keras sklearn dataframe async await promise callback thread threading
multithreading concurrency concurrent mutex syntax parse parser parsing lambda iterator generator
decorator inheritance polymorphism constructor instance attribute repository repo commit branch
merge deploy deployment unittest pytest junit refactor refactoring snippet implement
implementation terminal command cli ide vscode jupyter notebook linked binary tree graph hash
hashmap hashtable sorting sort index indexing null undefined typeerror valueerror segfault
memory cache caching token authentication oauth jwt websocket socket tcp udp config
configuration dependency selenium scrape scraping scraper crawler arduino
microcontroller firmware webpage website jquery ajax android ios flutter unity
gradle maven webpack vite bytes bitwise nosql orm crud microservice
serverless aws azure gcp cron nginx apache localhost port breakpoint
stdout stderr argv subprocess runtimeerror nullpointerexception leetcode hackerrank
"""

_MATH = """
math maths mathematics mathematical algebra algebraic geometry geometric calculus trigonometry
trigonometric arithmetic equation inequality solve solving solution polynomial quadratic cubic
linear derivative differentiate differentiation differential integral integrate integration
antiderivative limit series sequence summation sum product fraction decimal percent percentage
ratio proportion proportional prime factor factorial factorize factorization divisible divisor
gcd lcm modulo modular integer rational irrational imaginary complex matrix matrices vector
determinant eigenvalue eigenvector theorem proof prove lemma axiom corollary conjecture
probability statistics statistical mean median variance deviation distribution binomial poisson
gaussian expectation permutation combination combinatorics triangle angle circle radius diameter
circumference area perimeter volume sqrt root exponent exponential logarithm logarithmic log sine
cosine tangent sin cos tan pi hypotenuse pythagorean pythagoras slope intercept coordinate
parabola hyperbola ellipse asymptote subset union intersection infinity infinite convergence
converge diverge divergent formula calculate calculation compute evaluate simplify multiply
multiplication divide division addition subtraction numerator denominator coefficient digit
polygon hexagon pentagon rectangle quadrilateral parallelogram trapezoid rhombus sphere cylinder
cone pyramid congruent perpendicular parallel symmetry symmetric topology manifold
scalar tensor dot cross orthogonal basis span dimension rank kernel calculator equals
numerical quotient remainder dividend exponentiation
"""

_WRITING = """
writing essay story poem poetry poet poetic verse stanza rhyme rhyming haiku sonnet limerick
lyrics song songwriting novel novella fiction nonfiction narrative narrator plot character
protagonist antagonist dialogue scene chapter prose tale fable fairy myth legend screenplay
monologue blog article headline slogan tagline caption copywriting paragraph outline draft
rewrite paraphrase proofread proofreading edit editing grammar tone metaphor simile imagery
theme genre romance fantasy horror mystery thriller comedy humor humorous funny creative
imaginative letter speech eulogy toast tweet biography memoir journal diary anecdote punchline
joke riddle ode ballad elegy epic villanelle alliteration description descriptive persuasive
argumentative introduction conclusion thesis bedtime villain hero heroine adventure wordplay pun
rap chorus storytelling worldbuilding fanfic fanfiction roleplay suspense cliffhanger
prologue epilogue manuscript publish author readers storyline backstory vivid
wording rephrase reword synonyms vocabulary
"""

_CODING_ZH = """
代码 编程 程序 程序员 函数 变量 常量 数组 列表 字典 元组 集合类 字符串 循环 递归 算法 排序
冒泡排序 选择排序 快速排序 二分查找 编译 编译器 报错 调试 异常 接口 数据库 前端 后端 脚本 对象
类型 指针 链表 二叉树 哈希 哈希表 栈 队列 堆栈 正则 正则表达式 爬虫 框架 部署 服务器 客户端 内存
线程 进程 多线程 并发 异步 语法 源码 源代码 开发 软件 网页 接口文档 复杂度 时间复杂度 空间复杂度
参数 返回值 调用 库 模块 安装 配置 命令行 终端 运行 输出结果 数据结构 面向对象 继承 多态 封装
实例化 构造函数 注释 单元测试
"""

_MATH_ZH = """
数学 方程 方程组 解方程 不等式 函数值 求解 求 代数 几何 三角形 四边形 正方形 长方形 圆形 面积
体积 周长 半径 直径 角度 三角函数 正弦 余弦 正切 积分 微分 导数 求导 极限 矩阵 向量 行列式
特征值 证明 定理 公式 数列 等差数列 等比数列 多项式 因式分解 分数 小数 百分比 百分数 质数 素数
整数 余数 平方 平方根 开方 根号 对数 指数 方差 均值 平均数 中位数 标准差 统计 概率 排列 组合
坐标 斜率 抛物线 椭圆 双曲线 加法 减法 乘法 除法 乘以 除以 计算 运算 算式 解题 应用题 数学题
未知数 系数 鸡兔同笼 奇数 偶数 倍数 约数 公约数 公倍数 最大公约数 最小公倍数 比例 立方 阶乘
概率论 线性代数 微积分 集合 一次函数 二次函数 反比例函数 三角形面积 勾股定理 圆周率
"""

_WRITING_ZH = """
写作 作文 一篇 文章 小说 故事 诗 诗歌 古诗 诗句 现代诗 散文 剧本 台词 文案 标题 段落 润色 改写 续写
扩写 创作 演讲稿 演讲 书信 祝福语 对联 歌词 标语 口号 广告语 人物 情节 角色 主角 开头 结尾 修辞
比喻 排比 拟人 文笔 风格 语气 读后感 观后感 日记 议论文 记叙文 说明文 七言 五言 律诗 绝句 押韵
宋词 词牌 抒情 描写 朗诵 主持词 发言稿 致辞 新闻稿 推文 公众号 小红书 文段 童话 寓言 剧情 短篇
长篇 章节 续集 祝酒词
"""

BUILTIN: dict[str, frozenset[str]] = {
    "coding": frozenset((_CODING + _CODING_ZH).split()),
    "math": frozenset((_MATH + _MATH_ZH).split()),
    "writing": frozenset((_WRITING + _WRITING_ZH).split()),
}


def load_vocabulary(*specs: str | Path | Iterable[str]) -> frozenset[str]:
    """The union of vocabularies: built-in names, word-list files, or iterables of words."""
    if not specs:
        raise InputError("no domain vocabulary given")
    terms: set[str] = set()
    for spec in specs:
        terms |= _one(spec)
    return frozenset(terms)


def _one(spec: str | Path | Iterable[str]) -> frozenset[str]:
    if isinstance(spec, str) and spec in BUILTIN:
        return BUILTIN[spec]
    if isinstance(spec, str | Path):
        return _read(Path(spec))
    return frozenset(_normalise(term, where=None) for term in spec)


def _read(path: Path) -> frozenset[str]:
    if not path.exists():
        raise InputError(f"not a built-in vocabulary ({', '.join(BUILTIN)}) nor a file", path=path)
    terms = set()
    for number, line in iter_input_lines(path):
        text = line.split("#", 1)[0].strip()
        if text:
            terms.add(_normalise(text, where=(path, number)))
    if not terms:
        raise InputError("vocabulary file has no words", path=path)
    return frozenset(terms)


def _normalise(term: str, *, where: tuple[Path, int] | None) -> str:
    """A vocabulary term lowercased; a term that is not one word is an error."""
    word = term.strip().lower() if isinstance(term, str) else ""
    if is_term(word):
        return word
    path, line = where if where else (None, None)
    raise InputError(
        f"vocabulary term {term!r} must be one word: Chinese characters, or a letter "
        "followed by letters, digits or underscores",
        path=path,
        line=line,
    )


def match_terms(keywords: Iterable[str], vocabulary: frozenset[str]) -> list[str]:
    """The keywords found in the vocabulary, as written or as their singular."""
    return [word for word in keywords if any(form in vocabulary for form in _forms(word))]


def _forms(word: str) -> tuple[str, ...]:
    """The word and its plausible singulars: queries -> query, classes -> class, lists -> list."""
    forms = [word]
    if word.endswith("ies"):
        forms.append(word[:-3] + "y")
    if word.endswith("es"):
        forms.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss"):
        forms.append(word[:-1])
    return tuple(forms)
