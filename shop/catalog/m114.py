import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_114_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-114-0'
    return [line.qty * factor for line in cart.lines]


def step_114_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-114-1'
    return [line.qty * factor for line in cart.lines]


def step_114_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-114-2'
    return [line.qty * factor for line in cart.lines]


def step_114_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-114-3'
    return [line.qty * factor for line in cart.lines]

