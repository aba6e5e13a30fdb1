"""Build a held-out set of Chinese documentation: the Debian FAQ in Simplified Chinese, as DocBook
wrote it (HTML, 16 pages), with 32 questions and their evidence.

The only Chinese text in ../shared/data is cmrc2018_trial (Wikipedia paragraphs). Chinese
technical documentation is another shape: numbered chapters of question-headings over short
answers, command examples in ``<pre>``, lists, footnotes, and DocBook's navigation tables at the
top and bottom of every page. The pages come with Debian's ``debian-faq-zh-cn`` package. The
questions were written from the pages as a Chinese-speaking user would ask them, in their own
words rather than the headings', each with the passage that answers it, before any rule of
zoomrag was changed for these pages. Evidence is found by its first and last words in the page's
text with the tags stripped, and written as offsets into the raw HTML, as ``zoomrag eval``
expects of an HTML corpus; the set is rebuilt from the system's files.

    apt-get install debian-faq-zh-cn              # or: apt-get download debian-faq-zh-cn and
                                                  # dpkg-deb -x it, then pass --source
    python bench/zh_faq_set.py                    # writes bench/out/derived/zh_faq
    python bench/quality.py --data bench/out/derived --datasets zh_faq --peers
"""

from __future__ import annotations

import sys
from pathlib import Path

from heldout import html_set_cli

ROOT = Path(__file__).resolve().parent
SOURCE = Path("/usr/share/doc/debian/FAQ/zh-cn")
OUT = ROOT / "out" / "derived" / "zh_faq"
FILES = ("index", "basic-defs", "getting-debian", "choosing", "compatibility", "software",
         "ftparchives", "pkg-basics", "pkgtools", "uptodate", "kernel", "customizing", "support",
         "contributing", "redistributing", "nextrelease", "faqinfo")

#: (question, page, first words of the evidence, last words of the evidence)
QUESTIONS = (
    ("Debian 这个名字怎么读，是怎么来的？", "basic-defs", "本计划的名字的发音为", "两个名字的缩写。"),
    ("稳定版发布以后还会加入新功能吗？", "getting-debian", "稳定版不会增加新功能", "security.debian.org 提供。"),
    ("stable、testing 和 unstable 里同一个软件的版本一样吗？", "choosing",
     "unstable 中的版本最新", "testing 中的软件包处于这两个极端之间。"),
    ("装了 unstable 以后还能退回到 stable 吗？", "choosing", "可以，但这一过程是单向的",
     "但是安装脚本在设计时不支持这么做。"),
    ("怎样看出我的机器跟踪的是哪个 Debian 发布版本？", "choosing", "大多数情况下非常容易搞清楚",
     "指出了这个系统正在跟踪哪一个 Debian 发布版本。"),
    ("想从 stable 换到 testing，sources.list 应该怎么改？", "choosing", "如果您当前正运行 stable",
     "那就将 /etc/apt/sources.list 的第三个字段改成“testing”。"),
    ("能在 Red Hat 系统上安装 .deb 软件包吗？", "compatibility", "不同的 Linux 发行版使用不同的软件包格式",
     "可使用 Alien 软件包在不同的软件包格式之间进行转换。"),
    ("自己从源码编译的非 Debian 程序应该装到哪个目录？", "compatibility", "下的文件不受 Debian 软件包管理系统的控制",
     "配置文件放入 /usr/local/etc/。"),
    ("编译时报错 ld: cannot find -lfoo，缺的是什么包？", "software", "要求这类符号链接",
     "为整数）。"),
    ("怎样确认系统是 Debian，以及它的版本号？", "software", "要确认您的系统是从真正的 Debian 基本光盘安装的",
     "和系统的版本号（在 Release 和 Codename 字段）。"),
    ("Debian 各个版本的代号是从哪里来的？", "ftparchives", "到目前为止，这些代号都来自皮克斯电影",
     "sid 是破坏所有玩具的隔壁男孩。"),
    ("pool 目录里的软件包是按什么规则存放的？", "ftparchives", "中，依源码包的名称进行组织",
     "用于生成这些二进制软件包的源码包。"),
    ("deb 文件名里的 VVV 和 RRR 分别表示什么？", "pkg-basics", "部分是上游开发者指定的版本号",
     "或者配置文件的修改。"),
    ("升级软件包时，我在 /etc 里改过的配置文件会被覆盖吗？", "pkg-basics",
     "是软件包管理系统在升级该软件包时不会覆盖", "可以被原地升级。"),
    ("www-browser 和 mail-transport-agent 这类名字是什么软件包？", "pkg-basics", "虚拟软件包是一个通用的名称",
     "的“虚包”。"),
    ("Pre-Depends 和普通的依赖有什么不同？", "pkg-basics", "是一种特殊的依赖关系",
     "某些其他的软件包。"),
    ("怎样让某个软件包不被 apt 升级？", "pkg-basics", "如果使用 apt，您可以使用以下命令将软件包设为",
     "apt-mark unhold package_name"),
    ("为什么 Debian 能在程序运行的时候升级它？", "pkgtools", "系统的内核（文件系统）支持替换正在使用的文件",
     "并在需要时重启它们。"),
    ("怎么列出系统里装了哪些软件包？", "pkgtools", "要知道 Debian 系统中安装的所有软件包的状态",
     "以及一行简短的描述。"),
    ("某个文件是哪个软件包安装的，怎么查？", "pkgtools", "的文件所属的软件包，可选择以下命令中的一个",
     "这会在已安装的软件包中搜索"),
    ("卸载了程序以后，为什么它的数据包还留在系统里？", "pkgtools", "不依赖“foo”，所以当您卸载",
     "允许您卸载这些软件包。"),
    ("升级软件包之前需要先进入单用户模式吗？", "uptodate", "不是。即使是在正在运行的系统中",
     "来停止和重启正在运行的进程。"),
    ("下载的 .deb 文件安装完以后可以删掉吗？", "uptodate", "如果您已经下载了这些文件到您的磁盘上",
     "aptitude clean"),
    ("怎样记录每次安装和卸载了哪些软件包？", "uptodate", "选项使 dpkg 记录软件包的状态改变和动作",
     "文件中。请确保配置了日志文件的周期性滚动。"),
    ("能让 Debian 定时自动升级吗？", "uptodate", "您可以使用 cron-apt", "但不安装它们。"),
    ("局域网里有多台机器，怎样只下载一次更新？", "uptodate", "如果您的网络上有多台 Debian 机器",
     "自动构建一个 Debian HTTP 镜像。"),
    ("旧的内核映像可以安全地删除吗？", "kernel", "脚本会检查您将要卸载的内核是否是正在运行的内核",
     "dpkg --purge linux-image-NNN"),
    ("怎样设置整个系统默认的纸张大小？", "customizing", "软件包，它会询问您整个系统默认的纸张大小",
     "手册页。"),
    ("想用自己编译的 login 替换 /bin/login，怎样才不会被升级覆盖？", "customizing",
     "--divert /bin/login.debian /bin/login", "来将您本地编译的程序移动到正确的位置。"),
    ("不想让某个服务开机启动，需要卸载它的软件包吗？", "customizing", "如果您不希望某个特定的服务在开机时被启动",
     "systemctl disable service.service"),
    ("怎么向 Debian 报告 bug？", "support", "如果您在 Debian 中发现了一个缺陷，请阅读",
     "自动添加您的系统的详细信息。"),
    ("可以自己刻录并出售 Debian 光盘吗？需要付授权费吗？", "redistributing",
     "您在分发我们已经发布的内容时不需要许可", "这就需要您分发它们的源代码。"),
)


def main(argv: list[str] | None = None) -> int:
    return html_set_cli(argv, __doc__, SOURCE, OUT, {n: f"{n}.zh-cn.html" for n in FILES}, QUESTIONS,
                        "they come with Debian's debian-faq-zh-cn package")


if __name__ == "__main__":
    sys.exit(main())
